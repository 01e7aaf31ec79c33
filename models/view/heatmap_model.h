// SPDX-License-Identifier: MIT
#pragma once

// What the rank×time heatmap shows, computed without any GUI type: per rank and time bucket, the share of
// time spent inside a collective and failed/dead. The STALLED share is an overlay: the stall windows (job-wide,
// from the analysis) are applied per pixel column at rasterization, so the levels can be built while the
// analysis still runs and a new analysis costs nothing (withStalls()).
// A pyramid of power-of-two buckets (per rank) serves coarse zoom; finer zoom rasterizes straight from the
// records (binary search of the visible window). Activity narrower than a cell is folded into it: stalled
// and failed shares are max-aggregated so a one-pixel stall never vanishes, inside shares are averaged.
// A rank with no collective record (its dump or trace is not in the folder) is drawn as unknown, not as
// computing: its cells are `unrecorded`, and a pixel row folding it with recorded ranks is too (max), so the
// computing colour always means that every rank of the row was seen computing.
// Immutable after build(); rasterize() may run on any thread.

#include "analysis/analysis.h"
#include "core/job_snapshot.h"
#include "core/progress.h"
#include "view/heatmap_blocks.h"
#include "view/level_cell.h"
#include "view/time_axis_mapping.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace stallscope {

struct HeatCell
{
    std::uint8_t inside = 0; // share of the cell's time inside any collective, 0..255
    std::uint8_t stalled = 0; // share inside a collective during a job-wide stall, 0..255
    std::uint8_t failed = 0; // share after the rank failed or timed out, 0..255
    std::uint8_t present = 0; // 255 when the cell has data at all
    std::uint8_t late = 0; // how late the rank arrived (max in the cell), log scale: 0 = on time, 255 = >= 1 s
    // Share inside a collective during a stall of a group the rank is not in: it waited in its own group's next
    // collective for the stalled group (pod groups: the other pods, docs/formats.md §6b). Exclusive of `stalled`.
    std::uint8_t held = 0;
    // 255 where the rank is present but has no collective record at all (known from its log only): what
    // it did here is unknown. The other shares stay 0 for it, except `failed` from its log's first error.
    std::uint8_t unrecorded = 0;
};

// Lateness in ns → the cell's log-scale byte (1 ms ≈ 26, 10 ms ≈ 89, 100 ms ≈ 171, 1 s = 255).
std::uint8_t quantizeLateness(TimeNs latenessNs);

enum class RowOrder { Rank, Host, Rail, FirstStuck };

class HeatmapModel
{
public:
    // `stalls`: time windows of job-wide stalls (incident windows).
    static std::shared_ptr<const HeatmapModel> build(
        SnapshotPtr snap, std::vector<TimeRange> stalls, Progress& progress);
    // Level 0 as `rank_levels.bin` keeps it beside a bundle (models/view/rank_levels_cache.cpp): null, with `why`,
    // when the file is absent, damaged or made from other records; the coarser levels are built from it.
    static std::shared_ptr<const HeatmapModel> load(SnapshotPtr snap, const std::string& file, std::string& why);
    // `dir`'s rank_levels.bin when it agrees with the snapshot, else build() (no stall windows either way).
    static std::shared_ptr<const HeatmapModel> loadOrBuild(
        SnapshotPtr snap, const std::string& dir, Progress& progress);
    // Writes level 0 to `file` atomically; "" or why not.
    std::string save(const std::string& file) const;
    // Level 0 came from rank_levels.bin, not from the records.
    bool levelsFromFile() const { return m_levelsFromFile; }
    // No levels: every raster is drawn straight from the records of its window. For headless renders (a few
    // images of a few windows), where the pyramid would cost more time and memory than it saves.
    static std::shared_ptr<const HeatmapModel> recordsOnly(SnapshotPtr snap, std::vector<TimeRange> stalls);
    // The same levels with other stall windows (cheap: the levels are shared).
    std::shared_ptr<const HeatmapModel> withStalls(std::vector<TimeRange> stalls) const;
    // The analysis' stalls with the group that stalled in each: ranks outside a stall's group that are inside a
    // collective during it are drawn as held, not stalled.
    std::shared_ptr<const HeatmapModel> withStalls(const AnalysisResult& analysis) const;
    // Adds lateness levels (each rank's arrival minus the collective's mean arrival, max per bucket), built
    // from the analysis' matched collectives. O(records); run it off the GUI thread.
    std::shared_ptr<const HeatmapModel> withLateness(const AnalysisResult& analysis) const;
    bool hasLateness() const { return m_lateLevels != nullptr; }
    // Some stall was one group's (pod groups): ranks of the other groups show as held during it.
    bool hasGroupStalls() const
    {
        return std::any_of(m_stallMembers.begin(), m_stallMembers.end(), [](const auto& m) { return m != nullptr; });
    }
    // Some rank has no collective record (only some dumps or traces in the folder): its rows are drawn unknown.
    bool hasUnrecordedRanks() const { return m_anyUnrecorded; }
    bool recorded(std::uint32_t rank) const
    {
        return !m_logRows || rank >= m_logRows->size() || !(*m_logRows)[rank].unrecorded;
    }
    // Where a recorded rank's records stop while the job goes on (its dump or trace ends, its log does not): unknown
    // from there. kNoTime when its records reach the end.
    TimeNs unknownAfter(std::uint32_t rank) const
    {
        return recorded(rank) && m_logRows && rank < m_logRows->size() ? (*m_logRows)[rank].recordsEnd : kNoTime;
    }
    // No record, but a line of its own log (timed or not): what the row's tooltip says of it.
    bool knownFromLogOnly(std::uint32_t rank) const
    {
        return !recorded(rank) && (*m_logRows)[rank].logged; // not recorded: a row of m_logRows
    }

    const JobSnapshot& snapshot() const { return *m_snap; }
    std::uint32_t rows() const { return static_cast<std::uint32_t>(m_snap->collectives.size()); }

    // Rank shown in each row for an order (FirstStuck: ranks that entered the first stall earliest first).
    std::vector<std::uint32_t> rowOrder(RowOrder order) const;

    // What first-stuck order means for this job: when every rank entered the first stall within jitter of the
    // others, the top row is where jitter put it, a hint and not a culprit; when one end of the order stands
    // apart, the rank there is worth a look. Empty when there is no stall.
    struct FirstStuck
    {
        std::uint32_t first = 0, last = 0; // ranks that entered earliest and latest
        TimeNs firstNs = kNoTime, medianNs = kNoTime, lastNs = kNoTime;
        std::size_t arrived = 0; // ranks that had entered a collective by the stall's start
        bool together = false; // all within kTogetherShare of the stall (or kTogetherMinNs)
    };
    std::optional<FirstStuck> firstStuck() const;
    static std::string explain(const FirstStuck& f); // "all 1024 ranks within 3 ms: …"
    static constexpr double kTogetherShare = 0.1; // of the stall's length
    static constexpr TimeNs kTogetherMinNs = 10'000'000; // 10 ms, compute jitter between ranks

    // Fills `out` (widthPx × heightPx, row-major) for the visible window. When there are more ranks than
    // pixel rows, each pixel row aggregates consecutive ranks of `order` (max for stalled/failed/unrecorded).
    // `coarse`: from level 0 even when its buckets are wider than two columns (blocky, never wrong), instead of the
    // records: a first frame of 131,072 ranks' full span from the levels, drawn while the fine one is made.
    void rasterize(const TimeAxisMapping& map, int heightPx, const std::vector<std::uint32_t>& order,
        std::vector<HeatCell>& out, bool coarse = false) const;
    // This window is finer than the levels: a fine raster reads every shown rank's records in it.
    bool needsRecords(const TimeAxisMapping& map) const;

    // The cell for one rank at one pixel column (tooltips, tests).
    HeatCell cellAt(const TimeAxisMapping& map, std::uint32_t rank, int x) const;

    TimeNs baseBucketNs() const { return m_baseNs; }
    // The level-0 bucket (a power of two, ns) for a span and a number of ranks: at most 32,768 buckets per rank
    // and 2^26 cells over all ranks (256 MiB), at least 256 buckets per rank.
    static TimeNs baseBucketFor(TimeNs span, std::size_t ranks);
    int levels() const { return static_cast<int>(m_levels->cells.size()); }
    std::size_t baseBuckets() const { return m_levels->bucketsAt.empty() ? 0 : m_levels->bucketsAt[0]; }
    // Tiers of rank blocks the levels carry (heatmap_blocks.h): 0 below kRankBlocksFrom ranks.
    std::size_t rankBlockTiers() const { return m_levels->blocks.size(); }
    std::uint64_t memoryBytes() const;

private:
    // When each rank arrived in the first stall (its collective's start, else enqueue); max() for none.
    std::vector<TimeNs> firstStallArrivals() const;
    // Per-frame plan shared by every rank: which level, and the bucket range of each pixel column.
    struct FramePlan
    {
        bool fromRecords = false;
        std::size_t level = 0;
        std::vector<TimeNs> edges; // map.t(x) for x in 0..W: column x is [edges[x], edges[x + 1]), rounded once
        std::vector<std::uint32_t> first, last; // bucket range [first, last) per column
        std::vector<std::uint8_t> present;
        std::vector<std::uint8_t> stallShare; // share of each column inside a stall window, 0..255
        // Stalls of one group, touching the window: columns [x0, x1) where non-members are held, not stalled.
        struct GroupStall
        {
            std::size_t x0 = 0, x1 = 0;
            const std::vector<bool>* members = nullptr;
        };
        std::vector<GroupStall> groupStalls;
    };
    void applyGroupStalls(const FramePlan& plan, std::uint32_t rank, HeatCell* out) const;
    // What a rank's log adds where no record of it says anything: for a rank with no record, present from its first
    // to its last timed line (over the whole job when other ranks have records), unknown while present; for a rank
    // whose records end before the job does (its dump or trace stops, its log goes on), unknown after them. In
    // both, failed from its log's first error or watchdog timeout on, and inside the collective a watchdog timed out
    // for the "ran for" before it. Null when the records say everything (every rank recorded to the end).
    struct LogRow
    {
        TimeNs aliveFrom = kNoTime, aliveTo = kNoTime; // no record: kNoTime = no timed line, present over the span
        TimeNs recordsEnd = kNoTime; // recorded ranks: unknown from here on (kNoTime: the records reach the end)
        TimeNs failedAt = kNoTime;
        TimeNs hungFrom = kNoTime, hungTo = kNoTime; // inside a collective by its watchdog timeout
        bool applies = false; // the log says something to draw
        bool unrecorded = false; // the rank has no record (with or without a log)
        bool logged = false; // a line of its own log names it (not only the Flight Recorder analyzer)
    };
    bool logRowApplies(std::uint32_t rank) const; // its log adds to its cells (applyLogRow does something)
    void applyLogRow(std::uint32_t rank, TimeNs t0, TimeNs t1, std::uint8_t& present, std::uint8_t& failed,
        std::uint8_t& inside) const;
    void markUnrecorded(const FramePlan& plan, std::uint32_t rank, std::size_t width, HeatCell* out) const;
    FramePlan plan(const TimeAxisMapping& map, bool coarse = false) const;
    void rasterizeRank(const TimeAxisMapping& map, const FramePlan& plan, std::uint32_t rank,
        std::vector<float>& scratch, HeatCell* out) const;

    struct Levels
    {
        std::vector<std::size_t> bucketsAt; // buckets per rank at each level
        std::vector<std::vector<LevelCell>> cells; // [level][rank * bucketsAt + i]
        std::vector<RankBlockTier> blocks; // the cells folded across ranks (none below kRankBlocksFrom ranks)
    };
    // Which rank blocks a frame may draw whole (rank order, every rank shown): a block whose ranks the logs add to
    // (unknown rows) or that a group stall splits into members and others is drawn rank by rank.
    struct BlockPlan
    {
        std::vector<std::vector<std::uint8_t>> usable; // [tier][block]
        std::vector<std::vector<std::vector<std::uint8_t>>> member; // [group stall of the plan][tier][block]
        bool any() const { return !usable.empty(); }
    };
    BlockPlan blockPlan(const FramePlan& plan, const std::vector<std::uint32_t>& order) const;
    // The largest tier whose block starts at `rank` and ends by `end`, -1 for none.
    int blockAt(const BlockPlan& blocks, std::size_t rank, std::size_t end) const;
    // Pixel columns from one row of a level (a rank's, or a block's with `most`, its largest inside share of one
    // rank per bucket); `lateRow` the same row of the lateness levels, or null.
    static void foldLevelColumns(const FramePlan& plan, const LevelCell* row, const std::uint8_t* most,
        const LevelCell* lateRow, std::size_t width, HeatCell* out);
    // One block's pixel columns, as rasterizeRank draws one rank's (inside: the block's mean).
    void rasterizeBlock(const FramePlan& plan, const BlockPlan& blocks, int tier, std::size_t block, std::size_t width,
        HeatCell* out) const;
    SnapshotPtr m_snap;
    std::vector<TimeRange> m_stalls; // sorted by start
    // Per stall (aligned with m_stalls): the ranks of the group that stalled; null when every rank is in it.
    std::vector<std::shared_ptr<const std::vector<bool>>> m_stallMembers;
    TimeNs m_originNs = 0;
    TimeNs m_baseNs = 1;
    std::shared_ptr<const Levels> m_levels;
    std::shared_ptr<const Levels> m_lateLevels; // same buckets; .late holds the lateness (optional)
    std::shared_ptr<const std::vector<LogRow>> m_logRows; // per rank; null when the records say everything
    bool m_anyUnrecorded = false; // some rank has no record at all
    bool m_levelsFromFile = false;

    static void addCoarserLevels(Levels& levels, std::uint32_t ranks);
    static std::shared_ptr<HeatmapModel> shell(SnapshotPtr snap, std::vector<TimeRange> stalls);
    // Level 0's buckets per rank for the job's span at `bucketNs` (build and load agree through it).
    static std::size_t baseBucketsFor(const JobSnapshot& s, TimeNs bucketNs);
    static std::shared_ptr<const std::vector<LogRow>> logRowsOf(const JobSnapshot& snap);
    static TimeNs recordsEndOf(const RankCollectives& c, TimeNs spanEnd);
};

} // namespace stallscope
