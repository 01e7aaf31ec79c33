// SPDX-License-Identifier: MIT
// The normal suite's half of fuzzing: every kept input (tests/fuzz/regressions/<target>/*: crashes found once,
// and the seeds) runs through its target's reader. Usage: fuzz_replay DIR — DIR holds one folder per target.
// Exit 0 when every input returns; a crash or an escaping exception fails the test (and names the input).
#include "fuzz_targets.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

int main(int argc, char** argv)
{
    namespace fs = std::filesystem;
    if (argc != 2) {
        std::cerr << "usage: fuzz_replay DIR\n";
        return 2;
    }
    std::size_t inputs = 0, targetsSeen = 0;
    for (const auto& target : stallscope::fuzz::targets()) {
        const fs::path dir = fs::path(argv[1]) / std::string(target.name);
        std::error_code ec;
        if (!fs::is_directory(dir, ec)) {
            continue;
        }
        ++targetsSeen;
        for (const auto& entry : fs::directory_iterator(dir)) {
            std::ifstream in(entry.path(), std::ios::binary);
            std::stringstream bytes;
            bytes << in.rdbuf();
            std::cout << target.name << ": " << entry.path().filename().string() << std::endl;
            try {
                target.run(bytes.str());
            } catch (const std::exception& e) {
                std::cerr << "FAIL " << entry.path() << ": an exception escaped the reader: " << e.what() << "\n";
                return 1;
            }
            ++inputs;
        }
    }
    std::cout << inputs << " kept inputs of " << targetsSeen << " targets read without a crash\n";
    return inputs > 0 ? 0 : 1;
}
