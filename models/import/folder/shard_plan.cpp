// SPDX-License-Identifier: MIT
// Which shard parses which file of a raw folder (shard_plan.h).
#include "import/folder/shard_plan.h"

#include "import/common/host_file.h"
#include "import/common/rank_records.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <tuple>

namespace stallscope::folder {

namespace fs = std::filesystem;

namespace {

// Ranks of one block: the GPUs of one node in the systems this is for (DGX/HGX: 8), so a host's dumps, named by
// rank, stay in one shard when a host runs 8 (or 4, or 2) consecutive ranks.
constexpr std::uint32_t kRanksPerBlock = 8;

// A group of files parsed by one shard: a host folder, a block of ranks, or a host a file name begins with.
struct Unit
{
    int kind = 0; // 0 host folder, 1 rank block, 2 host from the file name
    std::uint32_t block = 0;
    std::string name;
    bool operator<(const Unit& o) const { return std::tie(kind, block, name) < std::tie(o.kind, o.block, o.name); }
};

// A rank at the end of a file's name, as dumps (nccl_trace_rank_17.pkl) and rank logs (rank17.log) carry it.
std::optional<std::uint32_t> rankInName(std::string name)
{
    for (const char* ext : { ".log", ".txt", ".out", ".err" }) {
        if (name.size() > std::strlen(ext)
            && name.compare(name.size() - std::strlen(ext), std::string::npos, ext) == 0) {
            name.resize(name.size() - std::strlen(ext));
            break;
        }
    }
    return rankFromFileName(name);
}

// The unit a file belongs to, from its path inside the folder; nullopt when it belongs to none (read at the merge).
std::optional<Unit> unitOf(const fs::path& rel)
{
    const auto parent = rel.parent_path().filename().string();
    // hostOfNodeFile falls back to the folder when the file's own name is generic ("file" is): the folder's name
    // looks like a host's (gpu-a003, node017), not a tool's or a capture's.
    if (!parent.empty() && hostOfNodeFile((fs::path(parent) / "file").string()) == parent) {
        return Unit { 0, 0, parent };
    }
    if (const auto rank = rankInName(rel.filename().string())) {
        return Unit { 1, *rank / kRanksPerBlock, {} };
    }
    if (auto host = hostOfNodeFile(rel.filename().string()); !host.empty()) {
        // A profiler trace's "<host>_<pid>.<ns>.pt.trace.json": the host's traces together, not one unit per process.
        if (const auto cut = host.rfind('_'); cut != std::string::npos && cut + 1 < host.size()
            && host.find_first_not_of("0123456789", cut + 1) == std::string::npos) {
            host.resize(cut);
        }
        return Unit { 2, 0, std::move(host) };
    }
    return std::nullopt;
}

// FNV-1a, 64 bits: enough to tell two listings apart, not a defence against a made-up one.
void mix(std::uint64_t& h, std::string_view bytes)
{
    for (const unsigned char c : bytes) {
        h = (h ^ c) * 0x100000001b3ull;
    }
    h = (h ^ 0xff) * 0x100000001b3ull; // a separator, so "ab","c" and "a","bc" differ
}

} // namespace

std::string relativeName(const FolderPlan& plan, const fs::path& file)
{
    return file.lexically_relative(plan.dir).generic_string();
}

Result<FolderPlan> planShards(const std::string& dir, std::uint32_t count, std::vector<LoadIssue>& warnings)
{
    FolderPlan plan;
    plan.dir = dir;
    auto listing = listFolder(dir, warnings);
    if (!listing) {
        return listing.error();
    }
    plan.listing = std::move(listing.value());
    std::uint64_t h = 0xcbf29ce484222325ull;
    std::map<Unit, std::uint64_t> units; // bytes per unit, then its shard
    std::uint64_t total = 0;
    std::vector<std::optional<Unit>> unitOfFile;
    for (const auto& f : plan.listing.files) {
        const auto rel = relativeName(plan, f);
        std::error_code ec;
        const auto size = fs::file_size(f, ec);
        mix(h, rel);
        mix(h, std::to_string(size) + " " + std::to_string(modifiedNs(f)));
        unitOfFile.push_back(unitOf(rel));
        if (unitOfFile.back()) {
            units[*unitOfFile.back()] += size + 1; // + 1: empty files weigh something
            total += size + 1;
        }
    }
    for (const auto& root : plan.listing.sysfsRoots) {
        mix(h, relativeName(plan, root));
    }
    plan.fingerprint = h;
    // Units in order, cut into `count` runs of about equal bytes (a unit's shard is where its first byte falls):
    // neighbouring ranks and hosts together, and each task reads about as much as the others.
    const std::uint64_t perShard = total / count + 1;
    std::uint64_t before = 0;
    for (auto& [unit, weight] : units) {
        const auto bytes = weight;
        weight = std::min<std::uint64_t>(before / perShard, count - 1);
        before += bytes;
    }
    for (const auto& u : unitOfFile) {
        plan.shardOf.push_back(u ? static_cast<std::int64_t>(units.at(*u)) : -1);
    }
    return plan;
}

bool mayHoldRecords(const fs::path& file)
{
    std::ifstream in(file, std::ios::binary);
    char head[256] = {};
    in.read(head, sizeof head);
    const auto n = static_cast<std::size_t>(in.gcount());
    for (std::size_t k = 0; k < n; ++k) {
        const auto c = static_cast<unsigned char>(head[k]);
        if (c == 0 || c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            continue; // zeros a truncation left, blank lines
        }
        const bool text = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '#';
        return !text; // pickle's 0x80, '{', '[', gzip's 0x1f, a byte-order mark: maybe
    }
    return n == sizeof head; // all zeros so far: look whole; an empty file holds nothing
}

} // namespace stallscope::folder
