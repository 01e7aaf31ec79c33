// SPDX-License-Identifier: MIT
// Rank blocks of the heatmap's levels (heatmap_blocks.h): tier 1 from the per-rank cells, each further tier from the
// one before, 8 blocks at a time. Blocks are independent: split over the cores.
#include "view/heatmap_blocks.h"

#include "core/parallel.h"

#include <algorithm>

namespace stallscope {

namespace {

// One block of one level: folds `parts` consecutive sources (ranks or blocks of the tier below) of `weight[k]` ranks
// each, bucket by bucket. `maxOf(k, i)`: the largest inside share of one rank of source k in bucket i.
template <typename MaxOf>
void foldBlock(const LevelCell* const* src, const std::uint32_t* weight, std::size_t parts, std::size_t n, MaxOf maxOf,
    LevelCell* out, std::uint8_t* outMax)
{
    std::uint32_t ranks = 0;
    for (std::size_t k = 0; k < parts; ++k) {
        ranks += weight[k];
    }
    for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t inside = 0;
        LevelCell c {};
        std::uint8_t most = 0;
        for (std::size_t k = 0; k < parts; ++k) {
            const auto& x = src[k][i];
            inside += std::uint32_t(x.inside) * weight[k];
            c.late = std::max(c.late, x.late);
            c.failed = std::max(c.failed, x.failed);
            c.present = std::max(c.present, x.present);
            most = std::max(most, maxOf(k, i));
        }
        c.inside = static_cast<std::uint8_t>((inside + ranks / 2) / std::max(ranks, 1u));
        out[i] = c;
        outMax[i] = most;
    }
}

} // namespace

std::vector<RankBlockTier> foldRankBlocks(
    const std::vector<std::size_t>& bucketsAt, const std::vector<std::vector<LevelCell>>& cells, std::uint32_t ranks)
{
    std::vector<RankBlockTier> tiers;
    if (ranks < kRankBlocksFrom || cells.empty()) {
        return tiers;
    }
    for (std::uint32_t size = kRankBlockFactor; size <= ranks / 256; size *= kRankBlockFactor) {
        const RankBlockTier* below = tiers.empty() ? nullptr : &tiers.back();
        RankBlockTier tier;
        tier.ranks = size;
        tier.blockCount = (std::size_t(ranks) + size - 1) / size;
        const std::uint32_t step = below ? below->ranks : 1; // ranks per source
        const std::size_t sources = below ? below->blockCount : ranks;
        tier.cells.resize(cells.size());
        tier.insideMax.resize(cells.size());
        for (std::size_t level = 0; level < cells.size(); ++level) {
            const std::size_t n = bucketsAt[level];
            tier.cells[level].resize(tier.blockCount * n);
            tier.insideMax[level].resize(tier.blockCount * n);
        }
        parallelParts([&](unsigned part, unsigned count) {
            const auto [from, to] = partSlice(tier.blockCount, part, count);
            const LevelCell* src[kRankBlockFactor];
            std::uint32_t weight[kRankBlockFactor];
            for (std::size_t level = 0; level < cells.size(); ++level) {
                const std::size_t n = bucketsAt[level];
                const auto& from0 = below ? below->cells[level] : cells[level];
                for (auto b = from; b < to; ++b) {
                    const std::size_t first = b * kRankBlockFactor;
                    const std::size_t parts = std::min<std::size_t>(kRankBlockFactor, sources - first);
                    for (std::size_t k = 0; k < parts; ++k) {
                        src[k] = from0.data() + (first + k) * n;
                        const std::size_t firstRank = (first + k) * step;
                        weight[k] = static_cast<std::uint32_t>(std::min<std::size_t>(step, ranks - firstRank));
                    }
                    const auto maxOf = [&](std::size_t k, std::size_t i) -> std::uint8_t {
                        return below ? below->insideMax[level][(first + k) * n + i] : src[k][i].inside;
                    };
                    foldBlock(src, weight, parts, n, maxOf, tier.cells[level].data() + b * n,
                        tier.insideMax[level].data() + b * n);
                }
            }
        });
        tiers.push_back(std::move(tier));
    }
    return tiers;
}

} // namespace stallscope
