// fusebox-benchdnn: runs oneDNN Graph JSON cases on fusebox in correctness
// (C), performance (P) and list (L) mode, with the knobs of benchdnn's graph
// driver (doc/BENCHDNN.md).
//
//   fusebox-benchdnn --mode=C --batch=benchdnn_cases/ci
//   fusebox-benchdnn --mode=P --in-shapes=0:64x256x64x64+1:64x256x64x64 --case=benchdnn_cases/op/add_f32.json
#include <string>
#include <vector>

#include "driver.hpp"

int main(int argc, char **argv) {
    fbbench::driver d;
    if (int rc = d.run(std::vector<std::string>(argv + 1, argv + argc))) return rc;
    return d.finish();
}
