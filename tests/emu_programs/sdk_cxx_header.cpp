// The SDK's C++ host API as C++ programs include it: <dpu> (with <dpu.hpp> too: one API).
#include <dpu>
#include <dpu.hpp>

#include <iostream>
#include <vector>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    try {
        auto system = dpu::DpuSet::allocate(2);
        system.load(argv[1]);
        system.exec();
        std::vector<std::vector<unsigned int>> seen(2, std::vector<unsigned int>(1));
        system.copy(seen, "seen");
        std::cout << "seen=" << seen[0][0] << "," << seen[1][0] << "\n";
        system.copy("nosuchsymbol", std::vector<unsigned int>(1));
    } catch (const dpu::DpuError &error) {
        std::cout << "error_caught=" << error.what() << "\n";
    }
    std::cout << "OK\n";
    return 0;
}
