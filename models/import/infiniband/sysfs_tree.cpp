// SPDX-License-Identifier: MIT
#include "import/infiniband/sysfs_tree.h"

#include "core/parse_number.h"

#include <algorithm>
#include <chrono>
#include <fstream>

namespace stallscope {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxSysfsFile = 4096; // sysfs attributes are one page at most

std::optional<std::string> readSmall(const fs::path& p, TimeNs& newest)
{
    std::error_code ec;
    if (!fs::is_regular_file(p, ec) || fs::file_size(p, ec) > kMaxSysfsFile) {
        return std::nullopt;
    }
    std::ifstream in(p, std::ios::binary);
    std::string text(kMaxSysfsFile, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
        text.pop_back();
    }
    const auto mtime = fs::last_write_time(p, ec);
    if (!ec) {
        newest = std::max<TimeNs>(newest,
            std::chrono::duration_cast<std::chrono::nanoseconds>(
                std::chrono::file_clock::to_sys(mtime).time_since_epoch())
                .count());
    }
    return text;
}

// "0a7f:bc12:45ef:d23b" → 0x0a7fbc1245efd23b
std::optional<std::uint64_t> parseSysfsGuid(std::string text)
{
    text.erase(std::remove(text.begin(), text.end(), ':'), text.end());
    if (text.size() != 16) {
        return std::nullopt;
    }
    std::uint64_t v = 0;
    for (const char c : text) {
        const int d = c >= '0' && c <= '9' ? c - '0'
            : c >= 'a' && c <= 'f'         ? c - 'a' + 10
            : c >= 'A' && c <= 'F'         ? c - 'A' + 10
                                           : -1;
        if (d < 0) {
            return std::nullopt;
        }
        v = v << 4 | std::uint64_t(d);
    }
    return v;
}

std::vector<fs::path> children(const fs::path& dir)
{
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        out.push_back(it->path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

void readCounters(const fs::path& dir, bool ext, SysfsPortReading& r, TimeNs& newest, std::vector<LoadIssue>& warnings)
{
    for (const auto& f : children(dir)) {
        auto name = f.filename().string();
        if (ext) {
            if (name.size() < 4 || name.compare(name.size() - 3, 3, "_64") != 0) {
                continue;
            }
            name.resize(name.size() - 3);
        }
        const auto kind = parseCounterKind(name);
        if (!kind) {
            continue; // a counter Stallscope does not model (VL15_dropped, ...)
        }
        const auto text = readSmall(f, newest);
        if (!text || text->rfind("N/A", 0) == 0) {
            continue;
        }
        const auto v = parseNumber<std::uint64_t>(*text);
        if (!v) {
            warnings.push_back(
                { f.string(), 1, 0, "expected a decimal counter value, got \"" + text->substr(0, 40) + "\"" });
            continue;
        }
        // counters_ext holds the 64-bit form of the data counters: it replaces the 32-bit one.
        const auto same = std::find_if(r.counters.begin(), r.counters.end(), [&](auto& c) { return c.first == *kind; });
        if (same != r.counters.end()) {
            if (ext) {
                same->second = *v;
                r.bits[static_cast<std::size_t>(same - r.counters.begin())] = 64;
            }
            continue;
        }
        r.counters.emplace_back(*kind, *v);
        r.bits.push_back(ext ? 64 : 0);
    }
}

} // namespace

bool isSysfsInfinibandRoot(const fs::path& dir)
{
    std::error_code ec;
    std::size_t looked = 0, entries = 0;
    // Called on every folder of a raw folder: a look at its first entries only (a host has a few HCAs).
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end && ++entries <= 256; it.increment(ec)) {
        const auto dev = it->path();
        std::error_code probe; // a missing file is an answer here, not an end to the listing
        if (!fs::is_directory(dev / "ports", probe)) {
            continue;
        }
        for (const auto& port : children(dev / "ports")) {
            if (++looked > 64) {
                return false; // not the few ports of a host's HCAs
            }
            for (const char* mark : { "state", "phys_state", "rate", "counters" }) {
                if (fs::exists(port / mark, probe)) {
                    return true;
                }
            }
        }
    }
    return false;
}

std::string hostOfSysfsCopy(const fs::path& root, const fs::path& top)
{
    auto p = root;
    while (!p.empty() && p != top && p.has_filename()) {
        const auto name = p.filename().string();
        if (name != "infiniband" && name != "class" && name != "sys" && name != "sysfs" && name != "ib") {
            return name;
        }
        p = p.parent_path();
    }
    return top.filename().string();
}

SysfsTree readSysfsTree(const fs::path& root, std::vector<LoadIssue>& warnings)
{
    SysfsTree t;
    t.root = root.string();
    // .../<host folder>/sys/class/infiniband; the caller names the host when it knows where the folder opened
    const auto sys = root.parent_path().parent_path();
    t.host = sys.has_parent_path() ? sys.parent_path().filename().string() : std::string("host");
    for (const auto& dev : children(root)) {
        TimeNs newest = t.timeNs;
        std::optional<std::uint64_t> guid;
        if (auto text = readSmall(dev / "node_guid", newest)) {
            guid = parseSysfsGuid(*text);
            if (!guid) {
                warnings.push_back({ (dev / "node_guid").string(), 1, 0, "expected a GUID like 0a7f:bc12:45ef:d23b" });
            }
        }
        std::string fw;
        if (auto text = readSmall(dev / "fw_ver", newest)) {
            fw = text->substr(0, 40);
        }
        for (const auto& portDir : children(dev / "ports")) {
            SysfsPortReading r;
            r.device = dev.filename().string();
            r.nodeGuid = guid;
            const auto n = parseNumber<std::uint16_t>(portDir.filename().string());
            if (!n || *n == 0) {
                warnings.push_back({ portDir.string(), 0, -1, "expected a port number as the folder name: skipped" });
                continue;
            }
            r.port = *n;
            if (auto state = readSmall(portDir / "state", newest)) {
                r.active = state->find("ACTIVE") != std::string::npos;
                r.state = parsePortState(*state).value_or(PortState::Unknown);
                r.stateText = state->substr(0, 40);
            }
            if (auto phys = readSmall(portDir / "phys_state", newest)) {
                r.phys = parsePhysState(*phys).value_or(PhysState::Unknown);
                r.physText = phys->substr(0, 40);
            }
            if (auto layer = readSmall(portDir / "link_layer", newest)) {
                r.linkLayer = layer->substr(0, 40);
            }
            r.fw = fw;
            if (auto rate = readSmall(portDir / "rate", newest)) {
                r.rate = *rate;
            }
            readCounters(portDir / "counters", false, r, newest, warnings);
            readCounters(portDir / "counters_ext", true, r, newest, warnings);
            t.ports.push_back(std::move(r));
        }
        t.timeNs = newest;
    }
    return t;
}

} // namespace stallscope
