# apsp toolkit - one GNU Make entry point.
#   make            build every tool into bin/
#   make check      build, then run unit, command and (with a GPU) GPU tests
#   make install    PREFIX=/usr/local DESTDIR=  (tools, manual pages, the
#                   library: libapsp.a, libapsp.so, include/apsp/, apsp.pc,
#                   and the Python package apsp with apspmat.py: PYTHONDIR)
#   make SANITIZE=1 check   the same under AddressSanitizer + UBSan
#   make CUDA_ARCH="-gencode=..."  other GPU targets
#   make ISAL=0     the stream's deflate engine from zlib even where ISA-L is
#   make NCCL=0     apsp-gpu for one GPU even where NCCL is
#   make MPI=0      apsp-gpu without mpirun runs even where MPI is

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
LIBDIR  ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
# Where the system's python3 finds packages: Debian's for /usr, the
# versioned one under any other prefix (/usr/local/lib/python3.11/dist-packages).
PYVER   := $(shell python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
PYTHONDIR ?= $(if $(filter /usr,$(PREFIX)),$(PREFIX)/lib/python3/dist-packages,$(PREFIX)/lib/python$(PYVER)/dist-packages)
DESTDIR ?=

# The library's version; its shared object is libapsp.so.$(SOMAJOR).
LIB_VERSION := 0.1.0
SOMAJOR     := 0
# The headers other programs include as <apsp/NAME.h>: the public ones lie
# in lib/ itself, each room's internal ones in it.
PUBLIC_H    := lib/types.h lib/stream.h lib/graphio.h lib/solve.h lib/fw.h lib/stats.h lib/certify.h

CC      ?= cc
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -fopenmp -pthread
# The library's rooms (lib/ROOM/): its public headers lie in lib/ itself.
LIB_ROOMS := common stream graphio prepare cpu stats sparse check
LIB_INC   := -Ilib $(LIB_ROOMS:%=-Ilib/%)
LIB_H     := $(wildcard lib/*.h lib/*/*.h)
CPPFLAGS += $(LIB_INC) -Itoolkit -Irun -D_GNU_SOURCE
LDLIBS  += -lz -lm -fopenmp -pthread

ifeq ($(SANITIZE),1)
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif

# libarchive is optional: only the archive support of mtx2bin and the
# engines (run/graphin.c) needs it.
HAVE_LIBARCHIVE := $(shell echo 'int main(void){return 0;}' | \
	$(CC) -include archive.h -x c - -larchive -o /dev/null 2>/dev/null && echo 1)
ifeq ($(HAVE_LIBARCHIVE),1)
ARCHIVE_CPPFLAGS = -DHAVE_LIBARCHIVE
ARCHIVE_LIBS = -larchive
endif

# ISA-L is the stream's deflate engine and CRC (lib/stream/blockcodec.c); without
# it (or with ISAL=0) zlib does the same job, slower, in the same format.
ifneq ($(ISAL),0)
HAVE_ISAL := $(shell echo 'int main(void){return 0;}' | \
	$(CC) -include isa-l/igzip_lib.h -x c - -lisal -o /dev/null 2>/dev/null && echo 1)
endif
ifeq ($(HAVE_ISAL),1)
build/lib/stream/blockcodec.o build/pic/lib/stream/blockcodec.o: CPPFLAGS += -DHAVE_ISAL
LDLIBS   += -lisal
endif

# METIS gives sparse graphs their nested-dissection order (lib/prepare/order.c);
# without it (or with METIS=0) the engines run in the natural order.
ifneq ($(METIS),0)
HAVE_METIS := $(shell echo 'int main(void){return 0;}' | \
	$(CC) -include metis.h -x c - -lmetis -o /dev/null 2>/dev/null && echo 1)
endif
ifeq ($(HAVE_METIS),1)
build/lib/prepare/order.o build/pic/lib/prepare/order.o: CPPFLAGS += -DHAVE_METIS
LDLIBS   += -lmetis
endif

# CUDA is optional: without nvcc the GPU tool is skipped.
NVCC      ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
CUDA_ARCH ?= -gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_90,code=compute_90
NVCCFLAGS ?= -O3 -lineinfo
NVCCFLAGS += $(CUDA_ARCH) -std=c++17 $(LIB_INC) -Ikernels -Xcompiler -fopenmp,-pthread
CUDA_LIBDIR ?= $(dir $(NVCC))../lib64

# NCCL lets apsp-gpu use several GPUs from one process (kernels/dense/fw_gpu.cu);
# without it (or with NCCL=0) apsp-gpu uses one GPU.  Looked for beside
# CUDA, in the system, then in a Python environment's nvidia-nccl package
# (where the GPU machines keep it); NCCL_HOME=DIR names it.
ifneq ($(NVCC),)
ifneq ($(NCCL),0)
NCCL_DIRS := $(dir $(NVCC)).. /usr \
	$(shell python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null) \
	$(wildcard /opt/*/.venv/lib/python3*/site-packages/nvidia/nccl)
NCCL_HOME ?= $(firstword $(foreach d,$(NCCL_DIRS),$(if $(wildcard $(d)/include/nccl.h),$(d))))
endif
endif
ifneq ($(NCCL_HOME),)
NCCL_LIBDIR ?= $(firstword $(foreach l,lib64 lib lib/x86_64-linux-gnu,$(if $(wildcard $(NCCL_HOME)/$(l)/libnccl.so.2),$(NCCL_HOME)/$(l))))
endif
ifneq ($(NCCL_LIBDIR),)
HAVE_NCCL := 1
build/kernels/dense/fw_gpu.o: NVCCFLAGS += -DAPSP_NCCL -I$(NCCL_HOME)/include
NCCL_LIBS := -L$(NCCL_LIBDIR) -l:libnccl.so.2 -Xlinker -rpath -Xlinker $(NCCL_LIBDIR)
endif

# MPI lets apsp-gpu run as several processes, one GPU each, started by
# mpirun (run/ranks.c); it needs NCCL too.  Found through mpicc (Open MPI's
# --showme); MPI=0 leaves it out.
ifeq ($(HAVE_NCCL),1)
ifneq ($(MPI),0)
MPICC ?= mpicc
MPI_CFLAGS := $(shell $(MPICC) --showme:compile 2>/dev/null)
MPI_LINK   := $(filter -L% -l%,$(shell $(MPICC) --showme:link 2>/dev/null))
HAVE_MPI := $(shell echo 'int main(void){return 0;}' | \
	$(CC) $(MPI_CFLAGS) -include mpi.h -x c - $(MPI_LINK) -o /dev/null 2>/dev/null && echo 1)
endif
endif
ifeq ($(HAVE_MPI),1)
build/run/ranks.o: CPPFLAGS += -DAPSP_MPI $(MPI_CFLAGS)
endif

LIB_SRC   := $(wildcard lib/*/*.c)
# The sparse engine's sweeps vectorise over a batch of sources (-O3).
build/lib/sparse/elim.o build/pic/lib/sparse/elim.o: CFLAGS += -O3
LIB_OBJ   := $(LIB_SRC:%.c=build/%.o)
TOOL_OBJ  := $(addprefix build/toolkit/,tool.o output.o progress.o process.o)
TOOL_SRC  := $(filter-out tools/apsp-gpu.c,$(wildcard tools/*.c))
TOOLS     := $(TOOL_SRC:tools/%.c=bin/%)
UNIT_SRC  := $(wildcard tests/unit/test_*.c)
UNITS     := $(UNIT_SRC:tests/unit/%.c=build/tests/%)
BENCH_SRC := $(wildcard bench/*.c)
BENCHES   := $(BENCH_SRC:bench/%.c=build/bench/%)
MAN1      := $(wildcard man/*.1)
MAN3      := $(wildcard man/*.3)
MAN5      := $(wildcard man/*.5)

ifneq ($(NVCC),)
GPU_TOOLS := bin/apsp-gpu bin/fw-kernel-bench build/libapsp-gpu.so.$(LIB_VERSION)
# fw-kernel-bench is the developers' kernel benchmark (bench/): built, not installed.
INSTALL_GPU_TOOLS := bin/apsp-gpu
endif

all: $(TOOLS) $(GPU_TOOLS) build/libapsp.so.$(LIB_VERSION)
ifeq ($(NVCC),)
	@echo "nvcc not found: GPU tools (apsp-gpu) skipped"
endif
ifneq ($(HAVE_ISAL),1)
	@echo "ISA-L not found: streams deflated with zlib (same format, several times slower)"
endif
ifneq ($(HAVE_LIBARCHIVE),1)
	@echo "libarchive not found: mtx2bin built without archive (.tar.gz, .zip) support"
endif
ifneq ($(NVCC),)
ifneq ($(HAVE_NCCL),1)
	@echo "NCCL not found: apsp-gpu built for one GPU at a time"
else ifneq ($(HAVE_MPI),1)
	@echo "MPI not found: apsp-gpu uses the GPUs of one process (no mpirun runs)"
endif
endif
ifneq ($(HAVE_METIS),1)
	@echo "METIS not found: no nested-dissection order for sparse graphs (natural order, tiles still skipped)"
endif

build/libapsp.a: $(LIB_OBJ)
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

# The shared library: position-independent objects, only the public
# prefixes exported (lib/libapsp.map).
LIB_PIC := $(LIB_SRC:%.c=build/pic/%.o)
build/pic/%.o: %.c $(LIB_H)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -c -o $@ $<
build/libapsp.so.$(LIB_VERSION): $(LIB_PIC) lib/libapsp.map
	$(CC) -shared $(LDFLAGS) -Wl,-soname,libapsp.so.$(SOMAJOR) -Wl,--version-script,lib/libapsp.map \
		-o $@ $(LIB_PIC) $(LDLIBS)
build/apsp.pc: Makefile
	@mkdir -p $(@D)
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCLUDEDIR)' '' \
		'Name: apsp' \
		'Description: matrix streams, graph readers and Floyd-Warshall of the apsp toolkit' \
		'Version: $(LIB_VERSION)' \
		'Libs: -L$${libdir} -lapsp' \
		'Libs.private: $(LDLIBS)' \
		'Cflags: -I$${includedir}' >$@
.PHONY: build/apsp.pc

build/%.o: %.c $(LIB_H) $(wildcard toolkit/*.h run/*.h)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# The two engines share the reading and negative-cycle handling; they and
# apsp-stats print statistics alike.
# The engines also take a graph as text, as mtx2bin reads it (graphin.o).
bin/apsp-cpu: build/run/cpuroute.o build/run/engine.o build/run/sources.o build/run/graphin.o build/run/statsout.o build/run/checkpoint.o build/run/sparse.o build/run/betweenness.o
bin/apsp-stats: build/run/statsout.o
bin/mtx2bin bin/apsp-diff bin/apsp-info: build/run/graphin.o
bin/apsp-diff bin/apsp-info: build/run/certificate.o
bin/mtx2bin bin/gengraph: build/run/arcsout.o

build/run/graphin.o: CPPFLAGS += $(ARCHIVE_CPPFLAGS)
bin/mtx2bin bin/apsp-cpu bin/apsp-diff bin/apsp-info: LDLIBS += $(ARCHIVE_LIBS)

bin/%: build/tools/%.o $(TOOL_OBJ) build/libapsp.a
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(filter %.a,$^) $(LDLIBS)

# GPU: kernels apart from the host driver; the driver is C++ only where CUDA needs it.
build/kernels/%.o: kernels/%.cu $(wildcard kernels/*.cuh kernels/*/*.cuh kernels/*/*.h) $(LIB_H)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -c -o $@ $<

# The run machinery apsp-gpu uses beyond apsp-cpu's (run/).
GPU_RUN_OBJ := $(addprefix build/run/,gpuroute.o direct.o sink.o bands.o gpustart.o ranks.o float64.o sparse.o gpusparse.o gpubetweenness.o)
bin/apsp-gpu: build/tools/apsp-gpu.o $(GPU_RUN_OBJ) $(addprefix build/run/,engine.o betweenness.o sources.o graphin.o statsout.o checkpoint.o) build/kernels/dense/fw_gpu.o build/kernels/sparse/fw_sparse.o build/kernels/betweenness/fw_betweenness.o $(TOOL_OBJ) build/libapsp.a
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -o $@ $^ -lz -lm -lgomp $(if $(filter 1,$(HAVE_ISAL)),-lisal) $(if $(filter 1,$(HAVE_METIS)),-lmetis) $(ARCHIVE_LIBS) $(NCCL_LIBS) $(if $(filter 1,$(HAVE_MPI)),$(MPI_LINK))

build/tools/apsp-gpu.o $(GPU_RUN_OBJ): build/%.o: %.c $(LIB_H) $(wildcard toolkit/*.h run/*.h kernels/*/*.h)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Ikernels $(CFLAGS) -c -o $@ $<

# The GPU library the Python package loads (kernels/dense/fw_matrix.h): float64
# matrices in one call, over apsp-gpu's engine built position-independent,
# on libapsp.so (found beside it: $$ORIGIN).  libapsp.so exports only its
# public prefixes: the common layer (lib_) and the orders (ord_, which the
# engine's sparse runs take) are linked in from their own objects.
build/pic/kernels/dense/fw_gpu.o: kernels/dense/fw_gpu.cu $(wildcard kernels/*.cuh kernels/dense/*) $(LIB_H)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(if $(filter 1,$(HAVE_NCCL)),-DAPSP_NCCL -I$(NCCL_HOME)/include) -Xcompiler -fPIC -c -o $@ $<
build/pic/kernels/betweenness/fw_betweenness.o: kernels/betweenness/fw_betweenness.cu $(wildcard kernels/*.cuh kernels/betweenness/*) $(LIB_H)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -Xcompiler -fPIC -c -o $@ $<
# Many small graphs (kernels/batch/fw_smallgraphs.h): the kernels of each
# element type in a file of their own.
SMALLGRAPHS_PIC := $(patsubst kernels/%.cu,build/pic/kernels/%.o,$(wildcard kernels/batch/*.cu))
$(SMALLGRAPHS_PIC): build/pic/kernels/%.o: kernels/%.cu $(wildcard kernels/*.cuh kernels/batch/*) $(LIB_H)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -Xcompiler -fPIC -c -o $@ $<
GPU_LIB_PIC := build/pic/kernels/dense/fw_gpu.o build/pic/kernels/betweenness/fw_betweenness.o $(SMALLGRAPHS_PIC) build/pic/lib/common/common.o build/pic/lib/prepare/order.o
build/libapsp-gpu.so.$(LIB_VERSION): kernels/dense/fw_matrix.cu kernels/dense/fw_matrix.h kernels/fw_base.cuh $(GPU_LIB_PIC) build/libapsp.so.$(LIB_VERSION)
	ln -sf libapsp.so.$(LIB_VERSION) build/libapsp.so.$(SOMAJOR)
	$(NVCC) $(NVCCFLAGS) -shared -Xcompiler -fPIC -Xlinker -soname=libapsp-gpu.so.$(SOMAJOR) \
		-o $@ $< $(GPU_LIB_PIC) -Lbuild -l:libapsp.so.$(SOMAJOR) -lgomp $(if $(filter 1,$(HAVE_METIS)),-lmetis) \
		$(NCCL_LIBS) -Xlinker -rpath='$$ORIGIN'

bin/fw-kernel-bench: bench/fw_bench.cu build/kernels/dense/fw_gpu.o build/libapsp.a
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -o $@ $^ -lz -lm -lgomp $(if $(filter 1,$(HAVE_ISAL)),-lisal) $(if $(filter 1,$(HAVE_METIS)),-lmetis) $(NCCL_LIBS)

build/tests/%: tests/unit/%.c build/libapsp.a $(wildcard tests/unit/*.h) $(LIB_H)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< build/libapsp.a $(LDLIBS)

build/bench/%: bench/%.c build/libapsp.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -O3 -march=native $(LDFLAGS) -o $@ $< build/libapsp.a $(LDLIBS)

# The README's first command: gengraph | apsp-gpu (or apsp-cpu) | apsp-path.
demo: all
	@sh tools/apsp-demo.sh

# The stream read and written by the other engine too: restream linked with
# this build's library, and with one whose block codec is zlib's.
COMPAT := build/tests/restream build/tests/restream-zlib
build/zlib/blockcodec.o: lib/stream/blockcodec.c lib/stream/blockcodec.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<
build/zlib/libapsp.a: $(filter-out build/lib/stream/blockcodec.o,$(LIB_OBJ)) build/zlib/blockcodec.o
	$(AR) rcs $@ $^
build/tests/restream: tests/compat/restream.c build/libapsp.a
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< build/libapsp.a $(LDLIBS)
build/tests/restream-zlib: tests/compat/restream.c build/zlib/libapsp.a
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< build/zlib/libapsp.a $(filter-out -lisal,$(LDLIBS))

check test: all $(UNITS) $(COMPAT) stage
	@sh tests/run.sh

bench: all $(BENCHES)
	@sh bench/run.sh

datasets: bin/mtx2bin
	@sh datasets/convert.sh datasets

fuzz:
	@sh tests/fuzz/run.sh

lib: build/libapsp.a build/libapsp.so.$(LIB_VERSION) build/apsp.pc

install: all lib
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man5
	cp $(TOOLS) $(wildcard $(INSTALL_GPU_TOOLS)) $(DESTDIR)$(BINDIR)/
	cp $(MAN1) $(DESTDIR)$(MANDIR)/man1/
	cp $(MAN3) $(DESTDIR)$(MANDIR)/man3/
	cp $(MAN5) $(DESTDIR)$(MANDIR)/man5/
	mkdir -p $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/apsp $(DESTDIR)$(PKGCONFIGDIR)
	cp build/libapsp.a build/libapsp.so.$(LIB_VERSION) $(DESTDIR)$(LIBDIR)/
	ln -sf libapsp.so.$(LIB_VERSION) $(DESTDIR)$(LIBDIR)/libapsp.so.$(SOMAJOR)
	$(if $(NVCC),cp build/libapsp-gpu.so.$(LIB_VERSION) $(DESTDIR)$(LIBDIR)/ && ln -sf libapsp-gpu.so.$(LIB_VERSION) $(DESTDIR)$(LIBDIR)/libapsp-gpu.so.$(SOMAJOR))
	ln -sf libapsp.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/libapsp.so
	cp $(PUBLIC_H) $(DESTDIR)$(INCLUDEDIR)/apsp/
	cp build/apsp.pc $(DESTDIR)$(PKGCONFIGDIR)/
	mkdir -p $(DESTDIR)$(PYTHONDIR)/apsp
	cp python/apspmat.py $(DESTDIR)$(PYTHONDIR)/
	cp python/apsp/*.py $(DESTDIR)$(PYTHONDIR)/apsp/
	sed 's|@LIBDIR@|$(LIBDIR)|' python/apsp/_lib.py >$(DESTDIR)$(PYTHONDIR)/apsp/_lib.py

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(TOOLS) $(GPU_TOOLS)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN1)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(MAN3)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(MAN5)))
	rm -f $(addprefix $(DESTDIR)$(LIBDIR)/,libapsp.a libapsp.so.$(LIB_VERSION) libapsp.so.$(SOMAJOR) libapsp.so libapsp-gpu.so.$(LIB_VERSION) libapsp-gpu.so.$(SOMAJOR))
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/apsp/,$(notdir $(PUBLIC_H))) $(DESTDIR)$(PKGCONFIGDIR)/apsp.pc
	rm -f $(DESTDIR)$(PYTHONDIR)/apspmat.py $(addprefix $(DESTDIR)$(PYTHONDIR)/apsp/,$(notdir $(wildcard python/apsp/*.py)))
	-rmdir $(DESTDIR)$(PYTHONDIR)/apsp 2>/dev/null
	-rmdir $(DESTDIR)$(INCLUDEDIR)/apsp 2>/dev/null

# What make install leaves, staged under build/stage (DESTDIR, PREFIX=/usr),
# for tests/cmd/install.sh to build examples/ against.
stage: all lib
	rm -rf build/stage
	$(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/build/stage PREFIX=/usr >/dev/null

clean:
	rm -rf build bin

.PHONY: all lib demo check test bench datasets fuzz install uninstall stage clean
.SECONDARY:

# Fuzz targets replayed without libFuzzer on their seed corpora and on
# tests/data/fuzz-regress (tests/cmd/fuzz-regress.sh), in every build, with
# the sanitizers under SANITIZE=1.  The library's allocations go through the
# targets' capped wrappers (tests/fuzz/fuzz.h).
FUZZ_SRC    := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_REPLAY := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=build/fuzz-replay/%)
FUZZ_WRAP   := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup

build/fuzz-replay/%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(wildcard tests/fuzz/*.h) build/libapsp.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Itests/fuzz $(CFLAGS) $(LDFLAGS) $(FUZZ_WRAP) -o $@ $< tests/fuzz/replay.c build/libapsp.a $(LDLIBS)

check test: $(FUZZ_REPLAY)

# SANITIZE=1: apsp-gpu's C objects (and the library fw-kernel-bench takes
# the block schedule from) carry the sanitizers; nvcc links them, so name
# their runtimes (first, as ASan wants).
ifeq ($(SANITIZE),1)
bin/apsp-gpu bin/fw-kernel-bench: NVCCFLAGS += -Xlinker -lasan -Xlinker -lubsan
endif
