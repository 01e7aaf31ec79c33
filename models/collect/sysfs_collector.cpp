// SPDX-License-Identifier: MIT
#include "collect/sysfs_collector.h"

#include "core/time_format.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>
#include <unistd.h>

namespace stallscope {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> fileNames(const fs::path& dir)
{
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        if (e.is_regular_file(ec) || e.is_symlink(ec)) {
            out.push_back(e.path().filename().string());
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

// First line of a small sysfs file, trimmed; "" when unreadable or not a number ("N/A (no PMA)").
std::string readValue(const std::string& path, bool numeric = true)
{
    std::FILE* f = std::fopen(path.c_str(), "r");
    if (!f) {
        return {};
    }
    char buf[128];
    const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    std::string s(buf, n);
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) {
        s.pop_back();
    }
    if (numeric && (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)) {
        return {};
    }
    if (!numeric) {
        for (auto& c : s) {
            c = c == ',' ? ';' : c; // keep the CSV well formed ("4: ACTIVE")
        }
    }
    return s;
}

TimeNs nowNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::string hostName()
{
    char buf[256] = {};
    return ::gethostname(buf, sizeof buf - 1) == 0 ? std::string(buf) : std::string("unknown");
}

} // namespace

std::vector<CollectorPort> discoverPorts(const std::string& sysfsRoot)
{
    std::vector<CollectorPort> out;
    std::error_code ec;
    std::vector<fs::path> devices;
    for (const auto& e : fs::directory_iterator(sysfsRoot, ec)) {
        devices.push_back(e.path());
    }
    std::sort(devices.begin(), devices.end());
    for (const auto& dev : devices) {
        std::vector<fs::path> ports;
        for (const auto& e : fs::directory_iterator(dev / "ports", ec)) {
            ports.push_back(e.path());
        }
        std::sort(ports.begin(), ports.end());
        for (const auto& p : ports) {
            CollectorPort cp { dev.filename().string(), p.filename().string(), p.string(), fileNames(p / "counters"),
                fileNames(p / "hw_counters") };
            if (!cp.counters.empty() || !cp.hwCounters.empty()) {
                out.push_back(std::move(cp));
            }
        }
    }
    return out;
}

std::string runCollector(const CollectorOptions& o, const std::function<bool()>& stop)
{
    const auto ports = discoverPorts(o.sysfsRoot);
    if (ports.empty()) {
        return o.sysfsRoot + ": no InfiniBand ports with counters found";
    }
    std::error_code ec;
    fs::create_directories(o.outDir, ec);
    if (!fs::is_directory(o.outDir, ec)) {
        return o.outDir + ": cannot create the output folder";
    }
    // One column set for all ports: the union of counter names (a port without one leaves it empty).
    std::set<std::string> counterSet, hwSet;
    for (const auto& p : ports) {
        counterSet.insert(p.counters.begin(), p.counters.end());
        hwSet.insert(p.hwCounters.begin(), p.hwCounters.end());
    }
    const std::vector<std::string> counters(counterSet.begin(), counterSet.end());
    const std::vector<std::string> hw(hwSet.begin(), hwSet.end());
    const std::string host = o.host.empty() ? hostName() : o.host;
    std::FILE* out = nullptr;
    TimeNs fileStart = 0;
    std::string row;
    auto openFile = [&](TimeNs t) -> std::string {
        if (out) {
            std::fclose(out);
        }
        std::string stamp = formatUtc(t).substr(0, 19); // "2026-11-01 00:05:00"
        std::replace(stamp.begin(), stamp.end(), ' ', 'T');
        std::replace(stamp.begin(), stamp.end(), ':', '-');
        const auto path = (fs::path(o.outDir) / ("counters-" + host + "-" + stamp + ".csv")).string();
        out = std::fopen(path.c_str(), "w");
        if (!out) {
            return path + ": cannot write";
        }
        std::string header = "t_ns,host,device,port,state";
        for (const auto& c : counters) {
            header += "," + c;
        }
        for (const auto& c : hw) {
            header += ",hw:" + c;
        }
        std::fprintf(out, "%s\n", header.c_str());
        fileStart = t;
        return {};
    };
    auto next = std::chrono::steady_clock::now();
    for (std::uint64_t sample = 0; (o.samples == 0 || sample < o.samples) && !(stop && stop()); ++sample) {
        const TimeNs t = nowNs();
        if (!out || t - fileStart >= o.rotateNs) {
            if (auto err = openFile(t); !err.empty()) {
                return err;
            }
        }
        for (const auto& p : ports) {
            row = std::to_string(t) + "," + host + "," + p.device + "," + p.port + ","
                + readValue(p.dir + "/state", false);
            for (const auto& c : counters) {
                row += ",";
                if (std::binary_search(p.counters.begin(), p.counters.end(), c)) {
                    row += readValue(p.dir + "/counters/" + c);
                }
            }
            for (const auto& c : hw) {
                row += ",";
                if (std::binary_search(p.hwCounters.begin(), p.hwCounters.end(), c)) {
                    row += readValue(p.dir + "/hw_counters/" + c);
                }
            }
            row += '\n';
            std::fputs(row.c_str(), out);
        }
        std::fflush(out); // a reader (or a crash) sees whole samples
        next += std::chrono::nanoseconds(o.intervalNs);
        if (o.samples == 0 || sample + 1 < o.samples) {
            std::this_thread::sleep_until(next);
        }
    }
    if (out) {
        std::fclose(out);
    }
    return {};
}

} // namespace stallscope
