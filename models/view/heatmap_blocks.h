// SPDX-License-Identifier: MIT
#pragma once

// The heatmap's levels folded across ranks as well as time: aligned blocks of 8, 64, 512 … consecutive ranks, each
// cell the fold of the block's ranks in one bucket. A pixel row that folds hundreds of ranks (131,072 ranks on
// ~1,000 rows) reads a few blocks and a few single ranks at its ends instead of every rank, so a frame from the
// levels costs about the same at any job size. Built from the per-rank levels (no records read); immutable after.
// Folding follows the rasterizer's rules across ranks: inside is the mean (weighted by each part's ranks), failed,
// present and late are the max; `insideMax` keeps the largest inside share of one rank of the block, which is
// what a pixel row's stall shading follows (HeatmapModel::rasterize).

#include "view/level_cell.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace stallscope {

struct RankBlockTier
{
    std::uint32_t ranks = 0; // per block (the last block of the job may have fewer)
    std::vector<std::vector<LevelCell>> cells; // [level][block * bucketsAt[level] + i]
    std::vector<std::vector<std::uint8_t>> insideMax; // [level][block * bucketsAt[level] + i]
    std::size_t blockCount = 0;
};

// Jobs below this many ranks get no blocks: every rank of a pixel row is read (cheap there, and exact).
constexpr std::uint32_t kRankBlocksFrom = 4096;
constexpr std::uint32_t kRankBlockFactor = 8; // ranks per block of the first tier; each tier folds 8 of the last

// Tiers of blocks for levels of `ranks` ranks (`cells[level][rank * bucketsAt[level] + i]`): 8, 64, … ranks per block
// while a block is at most 1/256 of the job (a pixel row of a short plot folds no more). Empty below kRankBlocksFrom.
std::vector<RankBlockTier> foldRankBlocks(
    const std::vector<std::size_t>& bucketsAt, const std::vector<std::vector<LevelCell>>& cells, std::uint32_t ranks);

} // namespace stallscope
