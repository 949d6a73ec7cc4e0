# A stream's blocks must be read in their own places, and a stream ends at its
# end-of-stream marker: swapped blocks, a block from another matrix, two
# streams run together and appended bytes are all refused (exit 2), never read
# as a different matrix.
. "$TOP/tests/lib.sh"
g=$BIN/gengraph

# Two stored (-z 0) blocks of 1 MiB each: n = 1024 gives 4 MiB, four blocks.
$g -n 1024 -d 10 -s 4 -z 0 -o "$T/g"
hl=$(od -An -tu4 -j12 -N4 "$T/g" | tr -d ' ')
bs=$((16 + 1048576))
part() { dd if="$T/g" iflag=skip_bytes,count_bytes skip=$1 count=$2 status=none; }
size=$(wc -c <"$T/g")
{
	part 0 $hl
	part $((hl + bs)) $bs
	part $hl $bs
	part $((hl + 2 * bs)) $((size - hl - 2 * bs))
} >"$T/swapped"
expect_true "swapped file has the original's size" '[ $(wc -c <$T/swapped) -eq $size ]'
expect_stderr "blocks 0 and 1 swapped: CRC mismatch" 2 'CRC mismatch in block 0' '$BIN/bin2mtx --npy $T/swapped >/dev/null'
expect_stderr "swapped blocks: apsp-cpu refuses" 2 '^apsp-cpu: .*CRC' '$BIN/apsp-cpu $T/swapped >/dev/null'
# Block 1 repeated in place of block 2.
{
	part 0 $((hl + 2 * bs))
	part $((hl + bs)) $bs
	part $((hl + 3 * bs)) $((size - hl - 3 * bs))
} >"$T/repeated"
expect_stderr "a block repeated: refused" 2 'CRC mismatch in block 2' '$BIN/bin2mtx --npy $T/repeated >/dev/null'
expect_true "the untouched stream reads" '$BIN/bin2mtx --npy $T/g >/dev/null'

$g -n 20 -d 30 -s 1 -o "$T/a"
$g -n 20 -d 30 -s 2 -o "$T/b"
expect_stderr "two streams run together: refused" 2 'data after the end-of-stream marker' 'cat $T/a $T/b | $BIN/bin2mtx >/dev/null'
expect_stderr "bytes appended: refused" 2 'data after the end-of-stream marker' '(cat $T/a; echo junk) | $BIN/apsp-cpu >/dev/null'
expect_true "one stream alone reads" '$BIN/apsp-cpu $T/a | $BIN/apsp-path 0 1 >/dev/null; [ $? -le 1 ]'
