// SPDX-License-Identifier: MIT
#include "view/rank_search.h"

#include "core/parse_number.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace stallscope {

namespace {

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

std::string trim(const std::string& s)
{
    const auto a = s.find_first_not_of(" \t");
    const auto b = s.find_last_not_of(" \t");
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

} // namespace

RankSearch findRanks(const JobSnapshot& snap, const std::string& query)
{
    RankSearch out;
    const auto q = trim(query);
    if (q.empty()) {
        out.what = "type a rank number or a host name";
        return out;
    }
    if (const auto n = parseNumber<std::uint32_t>(q)) {
        if (*n < snap.ranks.size()) {
            out.ranks = { *n };
            out.what = "rank " + q + " on " + std::string(snap.str(snap.ranks[*n].host));
        } else {
            out.what = "no rank " + q + ": this job has ranks 0.." + std::to_string(snap.ranks.size() - 1);
        }
        return out;
    }
    // Hosts by name: an exact match wins; else the hosts whose names hold the text, if they are one.
    std::map<std::string, std::vector<std::uint32_t>> byHost;
    for (std::uint32_t r = 0; r < snap.ranks.size(); ++r) {
        byHost[std::string(snap.str(snap.ranks[r].host))].push_back(r);
    }
    auto hit = byHost.find(q);
    if (hit == byHost.end()) {
        std::vector<decltype(hit)> holding;
        for (auto it = byHost.begin(); it != byHost.end(); ++it) {
            if (lower(it->first).find(lower(q)) != std::string::npos) {
                holding.push_back(it);
            }
        }
        if (holding.size() != 1) {
            out.what = holding.empty() ? "no rank or host \"" + q + "\" in this job"
                                       : std::to_string(holding.size()) + " hosts hold \"" + q + "\" (" + holding[0]->first
                    + ", " + holding[1]->first + (holding.size() > 2 ? ", …" : "") + "): type more of the name";
            return out;
        }
        hit = holding.front();
    }
    out.ranks = hit->second;
    out.what = hit->first + ": rank" + (out.ranks.size() == 1 ? " " : "s ") + std::to_string(out.ranks.front())
        + (out.ranks.size() > 1 ? ".." + std::to_string(out.ranks.back()) : "");
    return out;
}

} // namespace stallscope
