// SPDX-License-Identifier: MIT
#include "test_support.h"

#include "sim/raw_writer.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

namespace stallscope::test {

namespace fs = std::filesystem;

TempDir::TempDir()
{
    static std::atomic<int> counter { 0 };
    m_path = fs::temp_directory_path()
        / ("stallscope-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(m_path);
    fs::create_directories(m_path);
}

TempDir::~TempDir()
{
    std::error_code ec;
    fs::permissions(m_path, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(m_path, ec);
}

SimConfig tinyConfig()
{
    auto c = *presetConfig("small");
    c.durationNs = 120 * kNsPerSec;
    c.faults[0].atNs = 60 * kNsPerSec;
    return c;
}

SimResult simulateOrFail(const SimConfig& config)
{
    NullProgress none;
    auto r = simulate(config, none);
    INFO((r ? std::string() : r.error()));
    REQUIRE(r.ok());
    return std::move(r.value());
}

std::string readFile(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

fs::path testDataPath(const std::string& name)
{
    return fs::path(STALLSCOPE_TEST_DATA_DIR) / name;
}

std::string testData(const std::string& name)
{
    return readFile(testDataPath(name));
}

void writeFile(const fs::path& p, const std::string& content)
{
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << content;
}

bool sameCounterSeries(const JobSnapshot& a, const JobSnapshot& b)
{
    if (a.counters.size() != b.counters.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.counters.size(); ++i) {
        const auto &x = a.counters[i], &y = b.counters[i];
        const auto &px = a.counterPorts[x.port], &py = b.counterPorts[y.port];
        if (px.guid != py.guid || px.port != py.port || x.kind != y.kind || x.bits != y.bits || x.size() != y.size()
            || !std::equal(x.timesNs.begin(), x.timesNs.end(), y.timesNs.begin())) {
            return false;
        }
        for (std::size_t k = 0; k < x.size(); ++k) {
            if (x.value(k) != y.value(k)) {
                return false;
            }
        }
    }
    return true;
}

std::string formatted(const std::vector<LoadIssue>& warnings)
{
    std::string all;
    for (const auto& w : warnings) {
        all += w.format() + "\n";
    }
    return all;
}

std::string folderFingerprint(const fs::path& dir)
{
    std::set<std::string> lines;
    for (const auto& e : fs::directory_iterator(dir)) {
        const auto t = e.last_write_time().time_since_epoch().count();
        lines.insert(e.path().filename().string() + " " + std::to_string(e.is_regular_file() ? e.file_size() : 0) + " "
            + std::to_string(t));
    }
    std::string out;
    for (const auto& l : lines) {
        out += l + "\n";
    }
    return out;
}

void writePartialRawFolder(const JobSnapshot& snap, const fs::path& dir, std::uint32_t recordedRanks)
{
    RawWriteOptions options;
    for (std::uint32_t r = 0; r < recordedRanks; ++r) {
        options.recordRanks.push_back(r);
    }
    REQUIRE(writeRawFolder(snap, dir.string(), options).empty());
    std::size_t dumps = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
        dumps += e.path().filename().string().rfind("nccl_trace_rank_", 0) == 0;
    }
    REQUIRE(dumps == recordedRanks);
}

} // namespace stallscope::test
