// A host program written against the SDK's C++ API (dpu.hpp): allocate, load, copy (the
// same vector to all DPUs, one vector per DPU, back), scatter-gather, exec, log, errors.
// Argument: the DPU program (sg_kernel.c).
#include <dpu.hpp>

#include <cstdint>
#include <iostream>
#include <vector>

using namespace dpu;

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::cerr << "usage: " << argv[0] << " DPU_PROGRAM\n";
        return 2;
    }
    try {
        auto system = DpuSet::allocate(3, "sgXferEnable=true");
        std::cout << "dpus=" << system.dpus().size() << " ranks=" << system.ranks().size() << "\n";
        auto program = system.load(argv[1]);

        std::vector<uint32_t> increment{5}, words{4};
        system.copy("increment", increment);
        DpuSymbol wordsSymbol = program.get("words");
        system.copy(wordsSymbol, words);
        std::vector<std::vector<uint64_t>> shares(3, std::vector<uint64_t>(4));
        for (unsigned d = 0; d < 3; d++)
            for (unsigned w = 0; w < 4; w++)
                shares[d][w] = d * 10 + w;
        system.copy("area", 0, shares);
        system.exec();
        std::vector<std::vector<uint64_t>> back(3, std::vector<uint64_t>(4));
        system.copy(back, "area");
        bool good = true;
        for (unsigned d = 0; d < 3; d++)
            for (unsigned w = 0; w < 4; w++)
                good = good && back[d][w] == d * 10 + w + 5;
        std::cout << "broadcast_and_per_dpu_copies=" << good << "\n";

        // Scatter-gather back into two blocks per DPU, with a lambda.
        std::vector<std::vector<uint64_t>> first(3, std::vector<uint64_t>(1)), rest(3, std::vector<uint64_t>(3));
        system.copyScatterGather(
            [&](struct sg_block_info *out, uint32_t dpu, uint32_t block) {
                if (block > 1)
                    return false;
                auto &target = block == 0 ? first[dpu] : rest[dpu];
                out->addr = reinterpret_cast<uint8_t *>(target.data());
                out->length = static_cast<uint32_t>(target.size() * sizeof(uint64_t));
                return true;
            },
            32, "area");
        good = true;
        for (unsigned d = 0; d < 3; d++)
            good = good && first[d][0] == back[d][0] && rest[d][2] == back[d][3];
        std::cout << "scatter_gather=" << good << "\n";

        system.log(std::cout);
        for (DpuSet *one : system.dpus())
            one->copy("increment", increment); // a single DPU's view works too

        try {
            system.copy("no_such_symbol", increment);
        } catch (const DpuError &error) {
            std::cout << "error_caught=" << error.what() << "\n";
        }
    } catch (const DpuError &error) {
        std::cout << "unexpected DpuError: " << error.what() << "\n";
        return 1;
    }
    try {
        auto plain = DpuSet::allocate(1);
        std::vector<std::vector<uint64_t>> none(1, std::vector<uint64_t>(1));
        plain.copyScatterGather([](struct sg_block_info *, uint32_t, uint32_t) { return false; }, 8, "area");
    } catch (const DpuError &error) {
        std::cout << "sg_not_activated=" << error.what() << "\n";
    }
    std::cout << "OK\n";
    return 0;
}
