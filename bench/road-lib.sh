# road-lib.sh - what the road-network scripts share (sparse-road*.sh),
# sourced after their sizes are set: nothing to do without a GPU; bin (the
# programs), dir (a scratch folder in /dev/shm, removed at the end), gpus
# (the machine's GPUs); the machine's line printed.  Not run by itself.
nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU here: skipped"; exit 0; }
bin=$(cd "$(dirname "$0")/.." && pwd)/bin
gpus=$(nvidia-smi -L | wc -l)
dir=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $gpus x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1), $(nproc) cores"
