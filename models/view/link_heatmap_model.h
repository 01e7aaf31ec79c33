// SPDX-License-Identifier: MIT
#pragma once

// The link × time heatmap's data (issue #13): one row per fabric link (and per port with counters on no known
// link), grouped by tier and lower switch; per row and time bucket the worst state the counters and events
// show — down > erroring > congested > normal > idle > no data. Stored as a pyramid: level 0 buckets are the
// counters' sampling interval (at least span / 65,536, and 256 MB for all rows together at most — the row count
// comes from the input), each level above folds 4 buckets into their worst, so
// drawing any window reads about one bucket per pixel column whatever the span (a week or an hour).
// Immutable once built; safe to read from any thread.

#include "core/job_snapshot.h"
#include "core/progress.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace stallscope {

enum class LinkCell : std::uint8_t { NoData = 0, Idle, Normal, Congested, Erroring, Down };
inline constexpr int kLinkCellCount = 6;
std::string_view toString(LinkCell c); // "no data", "idle", ...

enum class LinkRowOrder { Tier, TroubleFirst };

struct LinkRow
{
    std::optional<LinkId> link; // unset for a port on no known link
    std::uint64_t guid = 0; // the lower end (or the lone port)
    std::uint16_t port = 0;
    std::string name; // "leaf-r3 p126 <-> spine-06 p4"
    std::string group; // "leaf-spine: leaf-r3"
    std::string tier; // "host-leaf", "leaf-spine", "spine-core", "switch-switch", "unplaced"
    std::uint32_t downBuckets = 0; // level-0 buckets shown down (for "trouble first")
    std::uint32_t errorBuckets = 0;
};

class LinkHeatmapModel
{
public:
    static std::shared_ptr<const LinkHeatmapModel> build(std::shared_ptr<const JobSnapshot> snap, Progress& progress);
    // Level 0 as `stallscope convert` / `simulate` left it beside the bundle (`link_levels.bin`,
    // docs/bundle-format.md), when it was made from these very counters and events (its header must agree with the
    // snapshot's rows, span, sampling and counts, its size with the header); nullptr and `why` otherwise. Opening a
    // week of counters then reads 14 MB instead of every counter (issue #13: the cold first frame).
    static std::shared_ptr<const LinkHeatmapModel> load(
        std::shared_ptr<const JobSnapshot> snap, const std::string& file, std::string& why);
    // The cached level 0 if `dir` holds a valid one, else built.
    static std::shared_ptr<const LinkHeatmapModel> loadOrBuild(
        std::shared_ptr<const JobSnapshot> snap, const std::string& dir, Progress& progress);
    // Writes level 0 to `file` atomically; "" or "path: reason".
    std::string save(const std::string& file) const;

    const JobSnapshot& snapshot() const { return *m_snap; }
    const std::vector<LinkRow>& rows() const { return m_rows; } // in tier order
    // Row indices in `order`.
    std::vector<std::uint32_t> order(LinkRowOrder order) const;
    TimeNs bucketNs() const { return m_bucket0; }
    std::size_t levelCount() const { return m_levels.size(); }
    std::uint64_t memoryBytes() const;

    // Which buckets of which level each of `columns` equal slices of `window` covers: computed once per frame,
    // shared by every row (a frame is rows × columns cells; no division per cell).
    struct ColumnPlan
    {
        std::size_t level = 0;
        std::vector<std::int64_t> lo, hi; // per column, inclusive; lo > hi = outside the data
    };
    ColumnPlan plan(TimeRange window, int columns) const;
    void rasterizeRow(std::uint32_t row, const ColumnPlan& plan, LinkCell* out) const;
    // The worst cell of `row` in each of `columns` equal slices of `window` (written to out[0..columns)).
    void rasterizeRow(std::uint32_t row, TimeRange window, int columns, LinkCell* out) const;
    LinkCell cellAt(std::uint32_t row, TimeNs t) const;

private:
    LinkHeatmapModel() = default;
    static std::shared_ptr<LinkHeatmapModel> shape(std::shared_ptr<const JobSnapshot> snap);
    void fill(std::uint32_t row, TimeNs from, TimeNs to, LinkCell cell); // level 0, (from, to]
    void buildLevels();

    std::shared_ptr<const JobSnapshot> m_snap;
    std::vector<LinkRow> m_rows;
    TimeNs m_t0 = 0;
    TimeNs m_bucket0 = kNsPerSec;
    std::vector<std::size_t> m_buckets; // per level
    std::vector<std::vector<std::uint8_t>> m_levels; // level k: rows × m_buckets[k], row-major
};

} // namespace stallscope
