// fw_smallgraphs_int32.cu - the int32 kernels of many small graphs in one
// call (fw_smallgraph_rounds.cuh), in a file of their own so that the types
// build in parallel.
#include "fw_smallgraph_rounds.cuh"

namespace sg {
SG_LAUNCH(int32_t)
}
