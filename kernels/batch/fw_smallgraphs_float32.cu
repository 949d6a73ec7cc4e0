// fw_smallgraphs_float32.cu - the float32 kernels of many small graphs in one
// call (fw_smallgraph_rounds.cuh), in a file of their own so that the types
// build in parallel.
#include "fw_smallgraph_rounds.cuh"

namespace sg {
SG_LAUNCH(float)
}
