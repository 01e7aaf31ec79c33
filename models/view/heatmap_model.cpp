// SPDX-License-Identifier: MIT
// The heatmap's model (heatmap_model.h). Over 600 lines as one file: its functions are HeatmapModel's members and
// their helpers, over its levels and log rows; the level builders and the rasteriser share the levels' layout.
#include "view/heatmap_model.h"

#include "core/parallel.h"
#include "core/time_format.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <thread>

namespace stallscope {

namespace {

constexpr std::size_t kMaxBaseBuckets = 32768; // level-0 buckets per rank: ~16 % of a bench-hour snapshot
// Level-0 cells over all ranks (4 bytes each: 256 MiB; the coarser levels add as much again). At 1,024 ranks
// the per-rank limit above binds; at 16,384 ranks this one does (4,096 buckets: 2.3 GB of levels before, more
// than the bundle), and zoom past level 0 rasterizes from the records, which is what it does anyway.
constexpr std::size_t kMaxBaseCells = std::size_t(1) << 26;
enum Channel { kInside = 0, kFailed = 1 };
constexpr int kChannels = 2;

// Adds [a, b) to channel `ch` of `acc` (kChannels floats per bucket, in units of whole buckets).
void addInterval(float* acc, std::size_t n, TimeNs origin, double perBucket, TimeNs a, TimeNs b, int ch)
{
    // perBucket = 1 / bucket length in ns: a multiplication, not a division, per end (tens of millions of records)
    double fa = std::max(double(a - origin) * perBucket, 0.0);
    double fb = std::min(double(b - origin) * perBucket, double(n));
    if (fb <= fa) {
        return;
    }
    const auto i0 = static_cast<std::size_t>(fa);
    const auto i1 = std::min(static_cast<std::size_t>(fb), n - 1);
    if (i0 == i1) {
        acc[kChannels * i0 + ch] += float(fb - fa);
        return;
    }
    acc[kChannels * i0 + ch] += float(double(i0 + 1) - fa);
    for (std::size_t i = i0 + 1; i < i1; ++i) {
        acc[kChannels * i + ch] += 1.0f;
    }
    acc[kChannels * i1 + ch] += float(fb - double(i1));
}

// Accumulates rank `c`'s records into n buckets of bucketNs from origin.
void accumulate(const RankCollectives& c, TimeNs spanEnd, TimeNs origin, double bucketNs, std::size_t n, float* acc)
{
    const TimeNs windowEnd = origin + static_cast<TimeNs>(bucketNs * double(n));
    const double perBucket = 1.0 / bucketNs;
    // First record enqueued at or after the window; then back up over records that may still be running
    // (a stalled or hung collective spans many buckets). NCCL runs one stream per group in order, so a
    // completed record that ended before the window means earlier ones did too.
    auto i = static_cast<std::size_t>(
        std::lower_bound(c.enqueueNs.begin(), c.enqueueNs.end(), origin) - c.enqueueNs.begin());
    while (i > 0) {
        const auto j = i - 1;
        if (c.stateAt(j) == CollectiveState::Completed && c.endNs[j] != kNoTime && c.endNs[j] <= origin) {
            break;
        }
        i = j;
    }
    for (; i < c.size() && c.enqueueNs[i] < windowEnd; ++i) {
        const auto st = c.stateAt(i);
        if (st == CollectiveState::Scheduled) {
            continue; // queued behind another collective, not inside one yet
        }
        const TimeNs a = c.startNs[i] != kNoTime ? c.startNs[i] : c.enqueueNs[i];
        const TimeNs b = c.endNs[i] != kNoTime ? c.endNs[i] : spanEnd;
        if (b <= origin) {
            continue;
        }
        addInterval(acc, n, origin, perBucket, a, b, kInside);
        if ((st == CollectiveState::Failed || st == CollectiveState::TimedOut) && c.endNs[i] != kNoTime) {
            addInterval(acc, n, origin, perBucket, c.endNs[i], spanEnd, kFailed);
        }
    }
}

std::uint8_t quantize(float share)
{
    return static_cast<std::uint8_t>(std::min(share, 1.0f) * 255.0f + 0.5f);
}

LevelCell merge(const LevelCell& x, const LevelCell& y)
{
    return { static_cast<std::uint8_t>((x.inside + y.inside + 1) / 2), std::max(x.late, y.late),
        std::max(x.failed, y.failed), std::max(x.present, y.present) };
}

} // namespace

// Coarser levels by pairs (mean inside, max of the rest) until a rank fits in a few hundred buckets.
void HeatmapModel::addCoarserLevels(Levels& levels, std::uint32_t ranks)
{
    while (levels.bucketsAt.back() > 256) {
        const auto prev = levels.bucketsAt.back();
        const auto next = (prev + 1) / 2;
        std::vector<LevelCell> level(std::size_t(ranks) * next);
        const auto& src = levels.cells.back();
        parallelParts([&](unsigned part, unsigned parts) { // ranks are independent: split them over the cores
            for (std::uint32_t r = part; r < ranks; r += parts) {
                for (std::size_t i = 0; i < next; ++i) {
                    const auto& x = src[std::size_t(r) * prev + 2 * i];
                    level[std::size_t(r) * next + i]
                        = 2 * i + 1 < prev ? merge(x, src[std::size_t(r) * prev + 2 * i + 1]) : x;
                }
            }
        });
        levels.bucketsAt.push_back(next);
        levels.cells.push_back(std::move(level));
    }
    levels.blocks = foldRankBlocks(levels.bucketsAt, levels.cells, ranks);
}

TimeNs HeatmapModel::baseBucketFor(TimeNs span, std::size_t ranks)
{
    const std::size_t maxBuckets
        = std::clamp<std::size_t>(kMaxBaseCells / std::max<std::size_t>(ranks, 1), 256, kMaxBaseBuckets);
    TimeNs bucket = 1;
    while (bucket < (TimeNs(1) << 62) && std::size_t(std::max<TimeNs>(span, 1) / bucket) > maxBuckets) {
        bucket *= 2;
    }
    return bucket;
}

std::shared_ptr<HeatmapModel> HeatmapModel::shell(SnapshotPtr snap, std::vector<TimeRange> stalls)
{
    auto m = std::make_shared<HeatmapModel>();
    m->m_snap = std::move(snap);
    std::sort(stalls.begin(), stalls.end(), [](auto& a, auto& b) { return a.start < b.start; });
    m->m_stalls = std::move(stalls);
    m->m_stallMembers.assign(m->m_stalls.size(), nullptr);
    m->m_originNs = m->m_snap->job.span.start;
    m->m_levels = std::make_shared<Levels>();
    m->m_logRows = logRowsOf(*m->m_snap);
    m->m_anyUnrecorded = m->m_logRows
        && std::any_of(m->m_logRows->begin(), m->m_logRows->end(), [](const LogRow& r) { return r.unrecorded; });
    return m;
}

// Where a rank's records stop saying what it did: the latest end of its last records (a collective enqueued late may
// end before an earlier one of another group), or the job's end when one of them never ended (it runs on).
TimeNs HeatmapModel::recordsEndOf(const RankCollectives& c, TimeNs spanEnd)
{
    TimeNs end = kNoTime;
    for (std::size_t i = c.size(); i > 0 && c.size() - i < kInterleavedRecords; --i) {
        const auto j = i - 1;
        if (c.endNs[j] == kNoTime) {
            return spanEnd;
        }
        end = end == kNoTime ? c.endNs[j] : std::max(end, c.endNs[j]);
    }
    return end;
}

// What the logs add to the rows (see LogRow): ranks with no record, and recorded ranks whose records stop while their
// log goes on.
std::shared_ptr<const std::vector<HeatmapModel::LogRow>> HeatmapModel::logRowsOf(const JobSnapshot& s)
{
    auto hasRecords = [&](std::size_t r) { return r < s.collectives.size() && s.collectives[r].size() > 0; };
    auto rows = std::make_shared<std::vector<LogRow>>(s.ranks.size());
    bool any = false;
    // When some ranks have records, the others were in the same collectives from the start (a collective needs
    // every rank of its group): a logged rank's row is unknown from the job's start, not from its first timed line
    // (NCCL's init lines carry no time, so that is often a watchdog timeout at the end), to the job's end.
    const bool someRecorded = s.collectiveCount() > 0;
    for (std::size_t r = 0; r < s.ranks.size(); ++r) {
        auto& row = (*rows)[r];
        if (hasRecords(r)) {
            row.recordsEnd = recordsEndOf(s.collectives[r], s.job.span.end);
            continue;
        }
        row.unrecorded = true;
        const bool timed = s.ranks[r].logFirstNs != kNoTime;
        row.aliveFrom = someRecorded && timed ? s.job.span.start : s.ranks[r].logFirstNs;
        row.aliveTo = someRecorded && timed ? s.job.span.end : s.ranks[r].logLastNs;
        row.applies = row.aliveFrom != kNoTime;
        row.logged = row.aliveFrom != kNoTime;
        any = true;
    }
    // A recorded rank is unknown past its records when the job goes on without them: other ranks have none (the
    // span is the logs'), or its own log says something later. Within a second of the end is the usual last step.
    std::vector<bool> logsLater(s.ranks.size(), false);
    for (const auto& f : s.logFacts) {
        if (f.rank < rows->size() && f.timeNs != kNoTime && !isAnalyzerFinding(f.kind) && !(*rows)[f.rank].unrecorded
            && f.timeNs > (*rows)[f.rank].recordsEnd) {
            logsLater[f.rank] = true;
        }
    }
    for (std::size_t r = 0; r < rows->size(); ++r) {
        auto& row = (*rows)[r];
        const bool stops = !row.unrecorded && row.recordsEnd != kNoTime && row.recordsEnd + kNsPerSec < s.job.span.end;
        if (stops && (any || logsLater[r])) {
            row.applies = true;
            any = true;
        } else if (!row.unrecorded) {
            row.recordsEnd = kNoTime;
        }
    }
    if (!any) {
        return nullptr; // a full job: every row is drawn from its records alone
    }
    for (const auto& f : s.logFacts) { // time order: the first failure of each rank
        if (f.rank >= rows->size() || isAnalyzerFinding(f.kind)) {
            continue;
        }
        auto& row = (*rows)[f.rank];
        row.logged = row.logged || row.unrecorded; // an untimed line too (NCCL's init lines carry no time)
        // What the records cannot say: all of it for a rank without any, what came after them for the others.
        const bool unsaid = row.unrecorded || (row.recordsEnd != kNoTime && f.timeNs != kNoTime && f.timeNs > row.recordsEnd);
        if (!unsaid || f.timeNs == kNoTime) {
            continue;
        }
        const bool fails = f.kind == LogEventKind::CompletionError || f.kind == LogEventKind::DeviceFatal
            || f.kind == LogEventKind::WatchdogTimeout;
        if (fails && row.failedAt == kNoTime) {
            row.failedAt = f.timeNs;
            row.applies = true;
        }
        if (f.kind == LogEventKind::WatchdogTimeout && f.ranForMs > 0 && row.hungTo == kNoTime) {
            row.hungFrom = f.timeNs - std::min<std::int64_t>(f.ranForMs, std::int64_t(1) << 40) * kNsPerMs;
            row.hungTo = f.timeNs;
            row.applies = true;
            if (row.unrecorded && row.aliveFrom != kNoTime) {
                row.aliveFrom = std::min(row.aliveFrom, row.hungFrom); // it was alive, waiting, that long before
            }
        }
    }
    return rows;
}

bool HeatmapModel::logRowApplies(std::uint32_t rank) const
{
    return m_logRows && rank < m_logRows->size() && (*m_logRows)[rank].applies;
}

void HeatmapModel::applyLogRow(std::uint32_t rank, TimeNs t0, TimeNs t1, std::uint8_t& present, std::uint8_t& failed,
    std::uint8_t& inside) const
{
    if (!logRowApplies(rank)) {
        return;
    }
    const auto& row = (*m_logRows)[rank];
    if (row.unrecorded && row.aliveFrom != kNoTime) {
        // Alive while its lines run, and at its failure (a failed rank is drawn failed, not absent).
        const TimeNs until = row.failedAt != kNoTime ? std::max(row.aliveTo, m_snap->job.span.end) : row.aliveTo;
        present = present && t1 > row.aliveFrom && t0 <= until ? 255 : 0;
    }
    if (row.hungTo != kNoTime && present && t1 > row.hungFrom && t0 < row.hungTo && t1 > t0) {
        const TimeNs overlap = std::min(t1, row.hungTo) - std::max(t0, row.hungFrom);
        inside = std::max(inside, quantize(float(double(overlap) / double(t1 - t0))));
    }
    if (row.failedAt != kNoTime && t1 > row.failedAt && present) {
        failed = 255;
    }
}

// Not stored in the levels (set per raster from `present`): cells of a rank that no record and no timed line of its
// log speak for. The log's "ran for" is spoken for: it was inside that collective.
void HeatmapModel::markUnrecorded(const FramePlan& plan, std::uint32_t rank, std::size_t width, HeatCell* out) const
{
    if (!m_logRows || rank >= m_logRows->size()) {
        return;
    }
    const auto& row = (*m_logRows)[rank];
    if (!row.unrecorded && row.recordsEnd == kNoTime) {
        return;
    }
    for (std::size_t x = 0; x < width; ++x) {
        const bool past = row.unrecorded || plan.edges[x + 1] > row.recordsEnd;
        const bool hung = row.hungTo != kNoTime && out[x].inside > 0 && plan.edges[x] < row.hungTo
            && plan.edges[x + 1] > row.hungFrom;
        if (past && !hung) {
            out[x].unrecorded = out[x].present;
        }
    }
}

std::shared_ptr<const HeatmapModel> HeatmapModel::recordsOnly(SnapshotPtr snap, std::vector<TimeRange> stalls)
{
    return shell(std::move(snap), std::move(stalls));
}

std::shared_ptr<const HeatmapModel> HeatmapModel::build(
    SnapshotPtr snap, std::vector<TimeRange> stalls, Progress& progress)
{
    auto m = shell(std::move(snap), std::move(stalls));
    const auto& s = *m->m_snap;
    const std::uint32_t ranks = static_cast<std::uint32_t>(s.collectives.size());
    const TimeNs span = std::max<TimeNs>(s.job.span.delta(), 1);
    m->m_baseNs = baseBucketFor(span, ranks);
    auto levels = std::make_shared<Levels>();
    const std::size_t n0 = baseBucketsFor(s, m->m_baseNs);
    levels->bucketsAt.push_back(n0);
    levels->cells.emplace_back(std::size_t(ranks) * n0);
    // Level 0 from the records, ranks split across the machine's cores.
    parallelParts([&](unsigned part, unsigned parts) {
        std::vector<float> acc(kChannels * n0);
        for (std::uint32_t r = part; r < ranks; r += parts) {
            if (part == 0) {
                progress.report("Building heatmap levels", r, ranks);
            }
            std::fill(acc.begin(), acc.end(), 0.0f);
            accumulate(s.collectives[r], s.job.span.end, m->m_originNs, double(m->m_baseNs), n0, acc.data());
            auto* row = levels->cells[0].data() + std::size_t(r) * n0;
            for (std::size_t i = 0; i < n0; ++i) {
                row[i] = { quantize(acc[kChannels * i]), 0, quantize(acc[kChannels * i + 1]), 255 };
                const TimeNs t0 = m->m_originNs + TimeNs(i) * m->m_baseNs;
                m->applyLogRow(r, t0, t0 + m->m_baseNs, row[i].present, row[i].failed, row[i].inside);
            }
        }
    });
    addCoarserLevels(*levels, ranks);
    m->m_levels = std::move(levels);
    return m;
}

std::uint8_t quantizeLateness(TimeNs latenessNs)
{
    if (latenessNs <= 0) {
        return 0;
    }
    const double ms = double(latenessNs) / 1e6;
    return static_cast<std::uint8_t>(std::clamp(std::log2(ms + 1.0) / std::log2(1001.0) * 255.0, 1.0, 255.0));
}

std::shared_ptr<const HeatmapModel> HeatmapModel::withLateness(const AnalysisResult& analysis) const
{
    if (m_levels->cells.empty()) {
        return std::make_shared<HeatmapModel>(*this); // records only: lateness needs the levels' buckets
    }
    const auto& s = *m_snap;
    // (group, seq) → mean arrival: matches are sorted by (group, seq); index each group's seq range.
    std::vector<std::pair<std::size_t, std::size_t>> groupRange(s.groups.size(), { 0, 0 });
    const auto& matches = analysis.collectives;
    for (std::size_t i = 0; i < matches.size(); ++i) {
        auto& r = groupRange[matches[i].group];
        if (r.second == 0) {
            r.first = i;
        }
        r.second = i + 1;
    }
    auto meanArrival = [&](std::uint16_t group, std::uint32_t seq) -> TimeNs {
        const auto [b, e] = groupRange[group];
        auto it = std::lower_bound(matches.begin() + std::ptrdiff_t(b), matches.begin() + std::ptrdiff_t(e), seq,
            [](const CollectiveMatch& m, std::uint32_t v) { return m.seq < v; });
        return it != matches.begin() + std::ptrdiff_t(e) && it->seq == seq ? it->meanArrivalNs : kNoTime;
    };
    auto levels = std::make_shared<Levels>();
    const std::size_t n0 = m_levels->bucketsAt[0];
    const auto ranks = static_cast<std::uint32_t>(s.collectives.size());
    levels->bucketsAt.push_back(n0);
    levels->cells.emplace_back(std::size_t(ranks) * n0);
    parallelParts([&](unsigned part, unsigned parts) {
        for (std::uint32_t r = part; r < ranks; r += parts) {
            const auto& c = s.collectives[r];
            auto* row = levels->cells[0].data() + std::size_t(r) * n0;
            for (std::size_t i = 0; i < c.size(); ++i) {
                if (c.stateAt(i) == CollectiveState::Scheduled && c.startNs[i] == kNoTime) {
                    continue;
                }
                const TimeNs arrival = c.startNs[i] != kNoTime ? c.startNs[i] : c.enqueueNs[i];
                const TimeNs mean = meanArrival(s.shapes[c.shape[i]].group, c.seq[i]);
                const TimeNs at = arrival - m_originNs;
                if (mean == kNoTime || at < 0 || std::size_t(at / m_baseNs) >= n0) {
                    continue;
                }
                auto& cell = row[std::size_t(at / m_baseNs)];
                cell.late = std::max(cell.late, quantizeLateness(arrival - mean));
                cell.present = 255;
            }
        }
    });
    addCoarserLevels(*levels, ranks); // the same bucket sequence as m_levels
    auto m = std::make_shared<HeatmapModel>(*this);
    m->m_lateLevels = std::move(levels);
    return m;
}

std::shared_ptr<const HeatmapModel> HeatmapModel::withStalls(std::vector<TimeRange> stalls) const
{
    auto m = std::make_shared<HeatmapModel>(*this); // copies pointers and scalars; the levels are shared
    std::sort(stalls.begin(), stalls.end(), [](auto& a, auto& b) { return a.start < b.start; });
    m->m_stalls = std::move(stalls);
    m->m_stallMembers.assign(m->m_stalls.size(), nullptr);
    return m;
}

std::shared_ptr<const HeatmapModel> HeatmapModel::withStalls(const AnalysisResult& analysis) const
{
    const auto& s = *m_snap;
    std::vector<std::pair<TimeRange, std::shared_ptr<const std::vector<bool>>>> stalls;
    for (const auto& inc : analysis.incidents) {
        if (inc.kind == IncidentKind::Straggler) {
            continue;
        }
        std::shared_ptr<std::vector<bool>> members;
        if (inc.heldRanks > 0 && inc.group < s.groups.size()
            && s.groups[inc.group].ranks.size() < s.collectives.size()) {
            members = std::make_shared<std::vector<bool>>(s.collectives.size(), false);
            for (const auto r : s.groups[inc.group].ranks) {
                if (r < members->size()) {
                    (*members)[r] = true;
                }
            }
        }
        stalls.emplace_back(TimeRange { inc.startNs, inc.endNs }, std::move(members));
    }
    std::sort(stalls.begin(), stalls.end(), [](auto& a, auto& b) { return a.first.start < b.first.start; });
    auto m = std::make_shared<HeatmapModel>(*this);
    m->m_stalls.clear();
    m->m_stallMembers.clear();
    for (auto& [range, members] : stalls) {
        m->m_stalls.push_back(range);
        m->m_stallMembers.push_back(std::move(members));
    }
    return m;
}

std::uint64_t HeatmapModel::memoryBytes() const
{
    std::uint64_t bytes = 0;
    for (const auto* levels : { m_levels.get(), m_lateLevels.get() }) {
        for (const auto& l : levels ? levels->cells : std::vector<std::vector<LevelCell>> {}) {
            bytes += l.capacity() * sizeof(LevelCell);
        }
        for (const auto& tier : levels ? levels->blocks : std::vector<RankBlockTier> {}) {
            for (std::size_t i = 0; i < tier.cells.size(); ++i) {
                bytes += tier.cells[i].capacity() * sizeof(LevelCell) + tier.insideMax[i].capacity();
            }
        }
    }
    return bytes;
}

std::vector<std::uint32_t> HeatmapModel::rowOrder(RowOrder order) const
{
    const auto& s = *m_snap;
    std::vector<std::uint32_t> rows(s.collectives.size());
    std::iota(rows.begin(), rows.end(), 0u);
    auto key = [&](std::uint32_t r) -> std::tuple<std::uint64_t, std::uint64_t, std::uint32_t> {
        const auto& ri = s.ranks[r];
        switch (order) {
        case RowOrder::Host:
            return { index(ri.host), ri.localGpu, r };
        case RowOrder::Rail:
            return { ri.localGpu, index(ri.host), r };
        default:
            return { 0, 0, r };
        }
    };
    if (order == RowOrder::FirstStuck && !m_stalls.empty()) {
        // Ranks stuck earliest on top.
        const auto arrival = firstStallArrivals();
        std::stable_sort(rows.begin(), rows.end(), [&](auto a, auto b) { return arrival[a] < arrival[b]; });
        return rows;
    }
    std::sort(rows.begin(), rows.end(), [&](auto a, auto b) { return key(a) < key(b); });
    return rows;
}

std::vector<TimeNs> HeatmapModel::firstStallArrivals() const
{
    const auto& s = *m_snap;
    std::vector<TimeNs> arrival(s.collectives.size(), std::numeric_limits<TimeNs>::max());
    if (m_stalls.empty()) {
        return arrival;
    }
    const TimeNs at = m_stalls.front().start;
    for (std::size_t r = 0; r < arrival.size(); ++r) {
        const auto& c = s.collectives[r];
        auto i = std::upper_bound(c.enqueueNs.begin(), c.enqueueNs.end(), at) - c.enqueueNs.begin();
        if (i > 0) {
            const auto j = static_cast<std::size_t>(i - 1);
            arrival[r] = c.startNs[j] != kNoTime ? c.startNs[j] : c.enqueueNs[j];
        }
    }
    return arrival;
}

std::optional<HeatmapModel::FirstStuck> HeatmapModel::firstStuck() const
{
    if (m_stalls.empty()) {
        return std::nullopt;
    }
    const auto arrival = firstStallArrivals();
    std::vector<std::uint32_t> in;
    for (std::uint32_t r = 0; r < arrival.size(); ++r) {
        if (arrival[r] != std::numeric_limits<TimeNs>::max()) {
            in.push_back(r);
        }
    }
    if (in.empty()) {
        return std::nullopt;
    }
    std::stable_sort(in.begin(), in.end(), [&](auto a, auto b) { return arrival[a] < arrival[b]; });
    FirstStuck f;
    f.first = in.front();
    f.last = in.back();
    f.firstNs = arrival[f.first];
    f.lastNs = arrival[f.last];
    f.medianNs = arrival[in[in.size() / 2]];
    f.arrived = in.size();
    const auto tolerance = std::max<TimeNs>(
        kTogetherMinNs, static_cast<TimeNs>(double(m_stalls.front().delta()) * kTogetherShare));
    f.together = f.lastNs - f.firstNs <= tolerance;
    return f;
}

std::string HeatmapModel::explain(const FirstStuck& f)
{
    if (f.together) {
        return "all " + std::to_string(f.arrived) + " ranks entered within " + formatDuration(f.lastNs - f.firstNs)
            + ": the top row is jitter, a hint, not a culprit";
    }
    // The end of the order that stands apart from the bulk is the one to look at.
    if (f.lastNs - f.medianNs >= f.medianNs - f.firstNs) {
        return "rank " + std::to_string(f.last) + " entered " + formatDuration(f.lastNs - f.medianNs)
            + " after most: the others waited for it";
    }
    return "rank " + std::to_string(f.first) + " entered first, " + formatDuration(f.medianNs - f.firstNs)
        + " before most";
}

bool HeatmapModel::needsRecords(const TimeAxisMapping& map) const
{
    return m_levels->cells.empty() || map.nsPerPx() < double(m_baseNs) / 2;
}

HeatmapModel::FramePlan HeatmapModel::plan(const TimeAxisMapping& map, bool coarse) const
{
    FramePlan p;
    const auto W = static_cast<std::size_t>(std::max(1, map.widthPx));
    const auto& s = *m_snap;
    p.edges.resize(W + 1);
    for (std::size_t x = 0; x <= W; ++x) {
        p.edges[x] = map.t(double(x));
    }
    p.present.resize(W);
    p.stallShare.assign(W, 0);
    auto stall = std::lower_bound(
        m_stalls.begin(), m_stalls.end(), map.visible.start, [](const TimeRange& r, TimeNs t) { return r.end <= t; });
    for (std::size_t x = 0; x < W; ++x) {
        const TimeNs t = p.edges[x];
        const TimeNs t1 = p.edges[x + 1];
        p.present[x] = t >= s.job.span.start && t < s.job.span.end ? 255 : 0;
        while (stall != m_stalls.end() && stall->end <= t) {
            ++stall;
        }
        TimeNs covered = 0;
        for (auto it = stall; it != m_stalls.end() && it->start < t1; ++it) {
            covered += std::max<TimeNs>(0, std::min(t1, it->end) - std::max(t, it->start));
        }
        if (covered > 0) {
            // Never round a stall away: at least 1/255 when it touches the column.
            p.stallShare[x]
                = std::max<std::uint8_t>(1, quantize(float(double(covered) / double(std::max<TimeNs>(1, t1 - t)))));
        }
    }
    for (std::size_t i = 0; i < m_stalls.size(); ++i) {
        if (!m_stallMembers[i] || m_stalls[i].end <= map.visible.start || m_stalls[i].start >= map.visible.end) {
            continue;
        }
        const auto x0 = static_cast<std::size_t>(std::clamp(map.x(m_stalls[i].start), 0.0, double(W)));
        const auto x1 = static_cast<std::size_t>(std::clamp(std::ceil(map.x(m_stalls[i].end)), 0.0, double(W)));
        p.groupStalls.push_back({ x0, std::min(W, std::max(x1, x0 + 1)), m_stallMembers[i].get() });
    }
    const double nsPerPx = map.nsPerPx();
    // Level 0 still serves when one of its buckets spans up to 2 columns (a little blocky, never wrong), or any
    // number of them when asked for a coarse frame; finer than that, the records are rasterized directly.
    if (m_levels->cells.empty() || (!coarse && needsRecords(map))) {
        p.fromRecords = true;
        return p;
    }
    while (p.level + 1 < m_levels->cells.size() && double(m_baseNs << (p.level + 1)) <= nsPerPx) {
        ++p.level;
    }
    const TimeNs bucket = m_baseNs << p.level;
    const auto n = static_cast<TimeNs>(m_levels->bucketsAt[p.level]);
    p.first.resize(W);
    p.last.resize(W);
    for (std::size_t x = 0; x < W; ++x) {
        const TimeNs t0 = p.edges[x] - m_originNs;
        const TimeNs t1 = p.edges[x + 1] - m_originNs;
        if (t1 <= 0 || t0 >= n * bucket) {
            p.first[x] = p.last[x] = 0;
            continue;
        }
        p.first[x] = static_cast<std::uint32_t>(std::max<TimeNs>(t0, 0) / bucket);
        p.last[x] = static_cast<std::uint32_t>(std::min<TimeNs>(n, (t1 + bucket - 1) / bucket));
    }
    return p;
}

void HeatmapModel::rasterizeRank(const TimeAxisMapping& map, const FramePlan& plan, std::uint32_t rank,
    std::vector<float>& scratch, HeatCell* out) const
{
    const auto W = static_cast<std::size_t>(std::max(1, map.widthPx));
    const auto& s = *m_snap;
    if (plan.fromRecords) {
        // Finer than the pyramid: straight from the records in the window.
        scratch.assign(kChannels * W, 0.0f);
        accumulate(s.collectives[rank], s.job.span.end, map.visible.start, map.nsPerPx(), W, scratch.data());
        // Asked once per rank, not per cell: most ranks' logs add nothing (190 M cells at 131,072 ranks).
        const bool logRow = logRowApplies(rank);
        for (std::size_t x = 0; x < W; ++x) {
            out[x] = HeatCell { quantize(scratch[kChannels * x]), 0, quantize(scratch[kChannels * x + 1]),
                plan.present[x] };
            if (logRow) {
                applyLogRow(rank, plan.edges[x], plan.edges[x + 1], out[x].present, out[x].failed, out[x].inside);
            }
            out[x].stalled = std::min(out[x].inside, plan.stallShare[x]);
        }
        applyGroupStalls(plan, rank, out);
        markUnrecorded(plan, rank, W, out);
        return;
    }
    const auto n = m_levels->bucketsAt[plan.level];
    const auto at = std::size_t(rank) * n;
    foldLevelColumns(plan, m_levels->cells[plan.level].data() + at, nullptr,
        m_lateLevels ? m_lateLevels->cells[plan.level].data() + at : nullptr, W, out);
    applyGroupStalls(plan, rank, out);
    markUnrecorded(plan, rank, W, out);
}

// A rank outside the group that stalled was not in the stalled collective: its time inside one there is held.
void HeatmapModel::applyGroupStalls(const FramePlan& plan, std::uint32_t rank, HeatCell* out) const
{
    for (const auto& g : plan.groupStalls) {
        if (rank < g.members->size() && (*g.members)[rank]) {
            continue;
        }
        for (std::size_t x = g.x0; x < g.x1; ++x) {
            out[x].held = std::max(out[x].held, out[x].stalled);
            out[x].stalled = 0;
        }
    }
}

void HeatmapModel::rasterize(const TimeAxisMapping& map, int heightPx, const std::vector<std::uint32_t>& order,
    std::vector<HeatCell>& out, bool coarse) const
{
    const auto W = static_cast<std::size_t>(std::max(1, map.widthPx));
    const auto H = static_cast<std::size_t>(std::max(1, heightPx));
    out.assign(W * H, HeatCell {});
    const std::size_t R = order.size();
    if (R == 0) {
        return;
    }
    const FramePlan framePlan = plan(map, coarse);
    const BlockPlan blocks = blockPlan(framePlan, order);
    // Pixel rows are independent: split them over the cores. Pixel row y shows ranks [r0, r1) of `order`
    // (several ranks per row when ranks outnumber pixels: stalled/failed max, inside averaged; unrecorded max,
    // so a row is never drawn computing while a rank in it is unknown, and the palette still draws a stall,
    // hold or failure of its recorded ranks over it). From the levels, whole rank blocks inside the row are read
    // as one (heatmap_blocks.h) and the ranks at its ends one by one.
    auto work = [&](std::size_t yBegin, std::size_t yEnd) {
        std::vector<float> scratch;
        std::vector<HeatCell> rankRow(W);
        std::vector<unsigned> insideSum(W);
        std::size_t lastRank = R; // more pixel rows than ranks: reuse the rank's row
        for (std::size_t y = yBegin; y < yEnd; ++y) {
            const std::size_t r0 = std::min(R - 1, y * R / H);
            const std::size_t r1 = std::min(R, std::max(r0 + 1, (y + 1) * R / H));
            HeatCell* dst = out.data() + y * W;
            if (r1 == r0 + 1 && r0 == lastRank) {
                std::copy(rankRow.begin(), rankRow.end(), dst);
                continue;
            }
            std::fill(insideSum.begin(), insideSum.end(), 0u);
            for (std::size_t r = r0; r < r1;) {
                unsigned weight = 1; // ranks the part drawn into rankRow stands for
                if (const int tier = blocks.any() ? blockAt(blocks, r, r1) : -1; tier >= 0) {
                    const auto size = m_levels->blocks[std::size_t(tier)].ranks;
                    weight = static_cast<unsigned>(std::min<std::size_t>(size, R - r));
                    rasterizeBlock(framePlan, blocks, tier, r / size, W, rankRow.data());
                } else {
                    rasterizeRank(map, framePlan, order[r], scratch, rankRow.data());
                }
                r += weight;
                for (std::size_t x = 0; x < W; ++x) {
                    insideSum[x] += rankRow[x].inside * weight;
                    dst[x].stalled = std::max(dst[x].stalled, rankRow[x].stalled);
                    dst[x].failed = std::max(dst[x].failed, rankRow[x].failed);
                    dst[x].present = std::max(dst[x].present, rankRow[x].present);
                    dst[x].late = std::max(dst[x].late, rankRow[x].late);
                    dst[x].held = std::max(dst[x].held, rankRow[x].held);
                    dst[x].unrecorded = std::max(dst[x].unrecorded, rankRow[x].unrecorded);
                }
            }
            const auto count = static_cast<unsigned>(r1 - r0);
            for (std::size_t x = 0; x < W; ++x) {
                dst[x].inside = static_cast<std::uint8_t>(insideSum[x] / count);
            }
            lastRank = r1 == r0 + 1 ? r0 : R;
            if (lastRank != R) {
                std::copy(dst, dst + W, rankRow.begin());
            }
        }
    };
    parallelParts(
        [&](unsigned part, unsigned parts) {
            const auto [from, to] = partSlice(H, part, parts);
            work(from, to);
        },
        H < 64 ? 1u : parallelPartCount());
}

HeatmapModel::BlockPlan HeatmapModel::blockPlan(const FramePlan& plan, const std::vector<std::uint32_t>& order) const
{
    BlockPlan bp;
    const auto& tiers = m_levels->blocks;
    const std::size_t R = order.size();
    if (plan.fromRecords || tiers.empty() || R != rows()) {
        return bp;
    }
    for (std::size_t i = 0; i < R; ++i) {
        if (order[i] != i) {
            return bp; // another order: blocks of consecutive ranks are not pixel rows' parts
        }
    }
    // Per rank: 1 when the levels say all of it (no unknown stretch marked per raster), and its group membership.
    std::vector<std::uint8_t> plain(R, 1);
    if (m_logRows) {
        for (std::size_t r = 0; r < R && r < m_logRows->size(); ++r) {
            plain[r] = !(*m_logRows)[r].unrecorded && (*m_logRows)[r].recordsEnd == kNoTime;
        }
    }
    // A tier's flags from the ranks' (tier 0) or the tier below's: 2 = mixed.
    const auto foldFlags = [&](const std::vector<std::uint8_t>& below, std::size_t tier, bool all) {
        const std::size_t per = kRankBlockFactor; // tier 0 folds ranks, each tier after it blocks of the one below
        std::vector<std::uint8_t> flags(tiers[tier].blockCount);
        for (std::size_t b = 0; b < flags.size(); ++b) {
            const std::size_t first = b * per;
            const std::size_t last = std::min(below.size(), first + per);
            std::uint8_t f = below[first];
            for (std::size_t k = first + 1; k < last; ++k) {
                f = all ? std::uint8_t(f && below[k]) : below[k] == f ? f : 2;
            }
            flags[b] = f;
        }
        return flags;
    };
    bp.usable.resize(tiers.size());
    for (std::size_t t = 0; t < tiers.size(); ++t) {
        bp.usable[t] = foldFlags(t == 0 ? plain : bp.usable[t - 1], t, true);
    }
    for (const auto& g : plan.groupStalls) {
        std::vector<std::uint8_t> in(R, 0);
        for (std::size_t r = 0; r < R && r < g.members->size(); ++r) {
            in[r] = (*g.members)[r];
        }
        auto& member = bp.member.emplace_back(tiers.size());
        for (std::size_t t = 0; t < tiers.size(); ++t) {
            member[t] = foldFlags(t == 0 ? in : member[t - 1], t, false);
            for (std::size_t b = 0; b < member[t].size(); ++b) {
                bp.usable[t][b] = bp.usable[t][b] && member[t][b] != 2;
            }
        }
    }
    return bp;
}

int HeatmapModel::blockAt(const BlockPlan& blocks, std::size_t rank, std::size_t end) const
{
    const auto& tiers = m_levels->blocks;
    const std::size_t R = rows();
    for (int t = int(tiers.size()) - 1; t >= 0; --t) {
        const std::size_t size = tiers[std::size_t(t)].ranks;
        if (rank % size == 0 && rank + std::min(size, R - rank) <= end && blocks.usable[std::size_t(t)][rank / size]) {
            return t;
        }
    }
    return -1;
}

void HeatmapModel::foldLevelColumns(const FramePlan& plan, const LevelCell* row, const std::uint8_t* most,
    const LevelCell* lateRow, std::size_t width, HeatCell* out)
{
    for (std::size_t x = 0; x < width; ++x) {
        const auto i0 = plan.first[x];
        const auto i1 = plan.last[x];
        if (i1 <= i0) {
            out[x] = {};
            continue;
        }
        unsigned inside = 0;
        unsigned busiest = 0; // a block's: the sum over buckets of its largest rank's share (bounds that rank's)
        HeatCell c {};
        for (auto i = i0; i < i1; ++i) {
            inside += row[i].inside;
            busiest += most ? most[i] : row[i].inside;
            c.failed = std::max(c.failed, row[i].failed);
            c.present = std::max(c.present, row[i].present);
            c.late = lateRow ? std::max(c.late, lateRow[i].late) : c.late;
        }
        c.inside = static_cast<std::uint8_t>(inside / (i1 - i0));
        // Inside a collective during a job-wide stall. Folded: a stall touching the column shows even when
        // the averaged inside share is small, because any inside time there overlaps it. For a block, its busiest
        // rank's share: a rank of it inside a collective during a stall shows it (exactly as rank by rank in a
        // column of one bucket; at most one step more where a column spans two).
        const auto share = static_cast<std::uint8_t>(busiest / (i1 - i0));
        c.stalled = std::min<std::uint8_t>(std::max<std::uint8_t>(share, busiest > 0 ? 1 : 0), plan.stallShare[x]);
        out[x] = c;
    }
}

void HeatmapModel::rasterizeBlock(
    const FramePlan& plan, const BlockPlan& blocks, int tier, std::size_t block, std::size_t width, HeatCell* out) const
{
    const auto t = static_cast<std::size_t>(tier);
    const auto n = m_levels->bucketsAt[plan.level];
    const auto& bt = m_levels->blocks[t];
    foldLevelColumns(plan, bt.cells[plan.level].data() + block * n, bt.insideMax[plan.level].data() + block * n,
        m_lateLevels ? m_lateLevels->blocks[t].cells[plan.level].data() + block * n : nullptr, width, out);
    for (std::size_t g = 0; g < plan.groupStalls.size(); ++g) {
        if (blocks.member[g][t][block]) {
            continue; // the block's ranks are all in the group that stalled (usable: never mixed)
        }
        for (std::size_t x = plan.groupStalls[g].x0; x < plan.groupStalls[g].x1; ++x) {
            out[x].held = std::max(out[x].held, out[x].stalled);
            out[x].stalled = 0;
        }
    }
}

HeatCell HeatmapModel::cellAt(const TimeAxisMapping& map, std::uint32_t rank, int x) const
{
    std::vector<float> scratch;
    std::vector<HeatCell> row(static_cast<std::size_t>(std::max(1, map.widthPx)));
    rasterizeRank(map, plan(map), rank, scratch, row.data());
    return x >= 0 && x < map.widthPx ? row[static_cast<std::size_t>(x)] : HeatCell {};
}

} // namespace stallscope
