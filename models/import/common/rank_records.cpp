// SPDX-License-Identifier: MIT
#include "import/common/rank_records.h"

#include "core/job_snapshot.h"
#include "core/parse_number.h"

#include <cctype>
#include <filesystem>

namespace stallscope {

CollectiveOp opFromProfilingName(const std::string& name)
{
    std::string op = name.substr(name.find(':') == std::string::npos ? 0 : name.find(':') + 1);
    if (op.find("all_reduce") != std::string::npos || op.find("allreduce") != std::string::npos) {
        return CollectiveOp::AllReduce;
    }
    if (op.find("all_gather") != std::string::npos || op.find("allgather") != std::string::npos) {
        return CollectiveOp::AllGather;
    }
    if (op.find("reduce_scatter") != std::string::npos || op.find("reducescatter") != std::string::npos) {
        return CollectiveOp::ReduceScatter;
    }
    if (op.find("broadcast") != std::string::npos) {
        return CollectiveOp::Broadcast;
    }
    if (op.find("all_to_all") != std::string::npos || op.find("alltoall") != std::string::npos) {
        return CollectiveOp::AllToAll;
    }
    if (op.find("barrier") != std::string::npos) {
        return CollectiveOp::Barrier;
    }
    if (op.rfind("reduce", 0) == 0) {
        return CollectiveOp::Reduce;
    }
    return CollectiveOp::Other;
}

std::size_t dtypeBytes(const std::string& d)
{
    static const std::map<std::string, std::size_t> sizes = { { "Float", 4 }, { "BFloat16", 2 }, { "Half", 2 },
        { "Double", 8 }, { "Long", 8 }, { "Int", 4 }, { "Short", 2 }, { "Byte", 1 }, { "Char", 1 }, { "Bool", 1 },
        { "Float8_e4m3fn", 1 }, { "Float8_e5m2", 1 } };
    auto it = sizes.find(d);
    return it == sizes.end() ? 0 : it->second;
}

std::optional<std::uint32_t> rankFromFileName(const std::string& path)
{
    // torchfrtrace's rule (trailing digits of the name), after extensions some collectors add: ".pkl",
    // ".pickle", ".json", ".jsonl", ".gz", ".bin".
    std::string name = std::filesystem::path(path).filename().string();
    for (bool stripped = true; stripped;) {
        stripped = false;
        for (const char* ext : { ".gz", ".pkl", ".pickle", ".json", ".jsonl", ".bin" }) {
            const std::string e(ext);
            if (name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0) {
                name.resize(name.size() - e.size());
                stripped = true;
            }
        }
    }
    std::size_t i = name.size();
    while (i > 0 && std::isdigit(static_cast<unsigned char>(name[i - 1]))) {
        --i;
    }
    if (i == name.size() || name.size() - i > 9) {
        return std::nullopt;
    }
    return parseNumber<std::uint32_t>(std::string_view(name).substr(i));
}

std::optional<std::vector<std::uint32_t>> parseGroupRanks(std::string_view s, std::uint32_t size, std::uint32_t maxSize)
{
    const auto cut = s.find("...");
    if (cut == std::string_view::npos) {
        return parseRanks(std::string(s));
    }
    const auto head = parseRanks(std::string(s.substr(0, cut)));
    const auto tail = parseRanks(std::string(s.substr(cut + 3)));
    if (head.size() < 2 || tail.size() != 1 || head[1] <= head[0]) {
        return std::nullopt;
    }
    const std::uint64_t step = head[1] - head[0];
    for (std::size_t k = 1; k < head.size(); ++k) {
        if (head[k] != head[0] + step * k) {
            return std::nullopt;
        }
    }
    const std::uint64_t span = tail[0] > head[0] ? tail[0] - head[0] : 0;
    if (span % step != 0) {
        return std::nullopt;
    }
    const auto members = span / step + 1;
    if (members <= head.size() || members > maxSize || (size != 0 && members != size)) {
        return std::nullopt;
    }
    std::vector<std::uint32_t> out(members);
    for (std::uint64_t k = 0; k < members; ++k) {
        out[k] = static_cast<std::uint32_t>(head[0] + step * k);
    }
    return out;
}

std::vector<std::uint32_t> parseRanks(const std::string& s)
{
    // "[0, 1, 2, 3]" or "[0,1,2,3]" (Python literal in a string)
    std::vector<std::uint32_t> out;
    std::string digits;
    for (char c : s + ",") {
        if (std::isdigit(static_cast<unsigned char>(c))) {
            digits += c;
        } else if (!digits.empty()) {
            if (const auto r = parseNumber<std::uint32_t>(digits)) { // a rank past 2^32 is damage: left out
                out.push_back(*r);
            }
            digits.clear();
        }
    }
    return out;
}

std::optional<LoadIssue> outsideAnyJob(std::uint32_t rank, const std::string& file)
{
    if (rank < JobInfo::kMaxWorldSize) {
        return std::nullopt;
    }
    return LoadIssue { file, 0, -1,
        "rank " + std::to_string(rank) + " is beyond any job (at most " + std::to_string(JobInfo::kMaxWorldSize)
            + " ranks)" };
}

void dropRanksOutsideAnyJob(
    std::map<std::string, GroupInfo>& groups, const std::string& file, std::vector<LoadIssue>& warnings)
{
    for (auto& [name, grp] : groups) {
        const auto before = grp.ranks.size();
        std::erase_if(grp.ranks, [](std::uint32_t r) { return r >= JobInfo::kMaxWorldSize; });
        if (grp.ranks.size() != before) {
            warnings.push_back({ file, 0, -1,
                "process group \"" + name + "\" lists " + std::to_string(before - grp.ranks.size())
                    + " ranks beyond any job (at most " + std::to_string(JobInfo::kMaxWorldSize)
                    + " ranks): they are left out of it" });
        }
    }
}

void warnNothingJoinable(const std::string& file, std::uint32_t rank, const RankRecords& r, std::size_t kernels,
    bool trace, std::vector<LoadIssue>& warnings)
{
    if (!r.entries.empty()) {
        return;
    }
    const auto who = "rank " + std::to_string(rank) + "'s " + (trace ? "trace" : "dump");
    if (r.p2pSkipped > 0) {
        warnings.push_back({ file, 0, -1,
            who + " holds send/recv only (" + std::to_string(r.p2pSkipped)
                + "): point-to-point transfers are not collectives every rank joins, so its row has no record" });
    } else if (trace && kernels == 0) {
        warnings.push_back({ file, 0, -1,
            who + " has no NCCL kernel (a trace of the CPU alone, or of a process that ran no collective), so its "
                  "row has no record" });
    }
}

} // namespace stallscope
