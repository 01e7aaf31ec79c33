// SPDX-License-Identifier: MIT
#include "bundle/binary.h"

#include "bundle/format.h"
#include "core/parallel.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <vector>

namespace stallscope::bundle {

namespace {

bool put(std::FILE* out, const void* data, std::size_t bytes)
{
    return bytes == 0 || std::fwrite(data, 1, bytes, out) == bytes;
}

template <typename T> bool putSpan(std::FILE* out, std::span<const T> s)
{
    return put(out, s.data(), s.size_bytes());
}

bool pad(std::FILE* out, std::uint64_t written)
{
    static const char zeros[8] = {};
    return put(out, zeros, align8(written) - written);
}

LoadIssue at(const std::string& file, std::uint64_t offset, std::string message)
{
    return LoadIssue { file, 0, static_cast<std::int64_t>(offset), std::move(message) };
}

template <typename T> std::span<const T> spanAt(const MappedFile& map, std::uint64_t offset, std::uint64_t count)
{
    return { reinterpret_cast<const T*>(map.bytes().data() + offset), static_cast<std::size_t>(count) };
}

// True when [offset, offset + bytes) lies inside a file of `size` bytes and offset is 8-aligned.
bool inside(std::uint64_t offset, std::uint64_t bytes, std::uint64_t size)
{
    return offset % 8 == 0 && offset <= size && bytes <= size - offset;
}

// The first problem in one rank's records (shape or state out of range, enqueue times going back), or none.
std::optional<LoadIssue> validateRank(
    const std::string& file, const RankCollectives& c, std::uint32_t r, std::uint64_t blockAt, std::uint32_t shapeCount)
{
    const auto n = c.size();
    for (std::size_t i = 0; i < n; ++i) {
        if (c.shape[i] >= shapeCount || c.state[i] >= kCollectiveStateCount) {
            return at(file, blockAt + 28 * n + 2 * i,
                "rank " + std::to_string(r) + " record " + std::to_string(i) + ": shape or state out of range");
        }
        if (i > 0 && c.enqueueNs[i] < c.enqueueNs[i - 1]) {
            return at(file, blockAt + 8 * i,
                "rank " + std::to_string(r) + " record " + std::to_string(i) + ": not sorted by enqueue time");
        }
    }
    return std::nullopt;
}

std::optional<LoadIssue> validateRecords(const std::string& file, const std::vector<RankCollectives>& ranks,
    const std::vector<std::uint64_t>& blockAt, std::uint32_t shapeCount, Progress& progress)
{
    const auto count = ranks.size();
    std::vector<std::optional<LoadIssue>> found(parallelPartCount());
    std::atomic<bool> stop { false }; // cancelled
    parallelParts(
        [&](unsigned part, unsigned parts) {
            const auto [from, to] = partSlice(count, part, parts);
            for (auto r = from; r < to && !stop; ++r) {
                if (part == 0) { // Progress is the caller's: only its thread reports and asks
                    if (progress.cancelled()) {
                        found[0] = at(file, 0, "cancelled");
                        stop = true;
                        return;
                    }
                    progress.report("Reading collectives", r * parts, count);
                }
                if (auto issue = validateRank(file, ranks[r], static_cast<std::uint32_t>(r), blockAt[r], shapeCount)) {
                    found[part] = std::move(issue); // the other slices go on: a lower one may hold a problem too
                    return;
                }
            }
        },
        static_cast<unsigned>(found.size()));
    for (auto& issue : found) {
        if (issue) {
            return issue;
        }
    }
    return std::nullopt;
}

} // namespace

std::string writeCollectivesBin(const std::vector<CollectiveShape>& shapeList, std::span<const std::uint64_t> counts,
    const std::function<RankCollectives(std::uint32_t)>& rankBlock, std::FILE* out)
{
    const auto rankCount = static_cast<std::uint32_t>(counts.size());
    CollHeader h {};
    std::memcpy(h.magic, kCollMagic, 8);
    h.version = kFormatVersion;
    h.rankCount = rankCount;
    h.shapeCount = static_cast<std::uint32_t>(shapeList.size());
    h.shapeTableOffset = sizeof(CollHeader);
    h.rankTableOffset = h.shapeTableOffset + h.shapeCount * sizeof(CollShapeEntry);
    std::uint64_t offset = h.rankTableOffset + std::uint64_t(rankCount) * sizeof(CollRankEntry);
    std::vector<CollRankEntry> rankTable(rankCount);
    for (std::uint32_t r = 0; r < rankCount; ++r) {
        rankTable[r] = { offset, counts[r] };
        offset += collBlockBytes(counts[r]);
    }
    h.fileSize = offset;
    std::vector<CollShapeEntry> shapes;
    for (const auto& s : shapeList) {
        shapes.push_back({ s.group, static_cast<std::uint8_t>(s.op), 0, 0, s.bytes });
    }
    bool ok = put(out, &h, sizeof h) && put(out, shapes.data(), shapes.size() * sizeof(CollShapeEntry))
        && put(out, rankTable.data(), rankTable.size() * sizeof(CollRankEntry));
    for (std::uint32_t r = 0; ok && r < rankCount; ++r) {
        const auto c = rankBlock(r);
        if (c.size() != counts[r]) {
            return "rank " + std::to_string(r) + " gave " + std::to_string(c.size()) + " records, not "
                + std::to_string(counts[r]);
        }
        ok = putSpan(out, c.enqueueNs) && putSpan(out, c.startNs) && putSpan(out, c.endNs) && putSpan(out, c.seq)
            && putSpan(out, c.shape) && putSpan(out, c.state) && putSpan(out, c.flags) && pad(out, c.size() * 32);
    }
    return ok ? std::string() : std::string("write failed");
}

std::string writeCollectivesBin(const JobSnapshot& snap, std::FILE* out)
{
    std::vector<std::uint64_t> counts;
    for (const auto& c : snap.collectives) {
        counts.push_back(c.size());
    }
    return writeCollectivesBin(
        snap.shapes, counts, [&](std::uint32_t r) { return snap.collectives[r]; }, out);
}

std::optional<LoadIssue> readCollectivesBin(
    const std::string& file, std::shared_ptr<MappedFile> map, JobSnapshot& snap, Progress& progress)
{
    const std::uint64_t size = map->size();
    if (size < sizeof(CollHeader)) {
        return at(file, 0, "file is " + std::to_string(size) + " bytes, shorter than the 64-byte header");
    }
    CollHeader h;
    std::memcpy(&h, map->bytes().data(), sizeof h);
    if (std::memcmp(h.magic, kCollMagic, 8) != 0) {
        return at(file, 0, "expected the magic \"SSCOLL01\" (not a Stallscope collectives file)");
    }
    if (h.version != kFormatVersion) {
        return at(file, 8, "unsupported collectives file version " + std::to_string(h.version));
    }
    if (h.fileSize != size) {
        return at(file, 40,
            "header says the file is " + std::to_string(h.fileSize) + " bytes but it is " + std::to_string(size)
                + " (truncated or appended to)");
    }
    if (h.rankCount != snap.job.worldSize) {
        return at(file, 12,
            "file holds " + std::to_string(h.rankCount) + " ranks but the manifest says world_size "
                + std::to_string(snap.job.worldSize));
    }
    if (!inside(h.shapeTableOffset, std::uint64_t(h.shapeCount) * sizeof(CollShapeEntry), size)
        || !inside(h.rankTableOffset, std::uint64_t(h.rankCount) * sizeof(CollRankEntry), size)) {
        return at(file, 24, "shape or rank table lies outside the file");
    }
    for (std::uint32_t i = 0; i < h.shapeCount; ++i) {
        CollShapeEntry e;
        const auto off = h.shapeTableOffset + i * sizeof e;
        std::memcpy(&e, map->bytes().data() + off, sizeof e);
        if (e.group >= snap.groups.size() || e.op >= kCollectiveOpCount) {
            return at(file, off, "shape " + std::to_string(i) + " names an unknown process group or op");
        }
        snap.shapes.push_back({ e.group, static_cast<CollectiveOp>(e.op), e.bytes });
    }
    snap.collectives.resize(h.rankCount);
    std::vector<std::uint64_t> blockAt(h.rankCount);
    for (std::uint32_t r = 0; r < h.rankCount; ++r) {
        CollRankEntry e;
        const auto entryOff = h.rankTableOffset + r * sizeof e;
        std::memcpy(&e, map->bytes().data() + entryOff, sizeof e);
        if (e.count > size / 32 || !inside(e.offset, collBlockBytes(e.count), size)) {
            snap.collectives.clear();
            return at(file, entryOff, "rank " + std::to_string(r) + "'s column block lies outside the file");
        }
        const auto n = e.count;
        auto& c = snap.collectives[r];
        c.enqueueNs = spanAt<TimeNs>(*map, e.offset, n);
        c.startNs = spanAt<TimeNs>(*map, e.offset + 8 * n, n);
        c.endNs = spanAt<TimeNs>(*map, e.offset + 16 * n, n);
        c.seq = spanAt<std::uint32_t>(*map, e.offset + 24 * n, n);
        c.shape = spanAt<std::uint16_t>(*map, e.offset + 28 * n, n);
        c.state = spanAt<std::uint8_t>(*map, e.offset + 30 * n, n);
        c.flags = spanAt<std::uint8_t>(*map, e.offset + 31 * n, n);
        blockAt[r] = e.offset;
    }
    // Validate what readers index with, so no later view can run off a table: every record is read, so the ranks
    // are split over the cores. The problem reported is the lowest rank's, as one pass would find it.
    if (auto issue = validateRecords(file, snap.collectives, blockAt, h.shapeCount, progress)) {
        snap.collectives.clear();
        return issue;
    }
    snap.storage.push_back(std::move(map));
    return std::nullopt;
}

std::string writeCountersHead(const std::vector<CounterPort>& portList, const std::vector<CounterSeries>& series,
    const std::vector<std::uint32_t>& seriesBlock, const std::vector<std::span<const TimeNs>>& blocks, std::FILE* out)
{
    CntrHeader h {};
    std::memcpy(h.magic, kCntrMagic, 8);
    h.version = kFormatVersion;
    h.portCount = static_cast<std::uint32_t>(portList.size());
    h.seriesCount = static_cast<std::uint32_t>(series.size());
    h.timeBlockCount = static_cast<std::uint32_t>(blocks.size());
    h.portTableOffset = sizeof h;
    h.timeBlockTableOffset = h.portTableOffset + h.portCount * sizeof(CntrPortEntry);
    h.seriesTableOffset = h.timeBlockTableOffset + h.timeBlockCount * sizeof(CntrTimeBlockEntry);
    std::uint64_t offset = h.seriesTableOffset + h.seriesCount * sizeof(CntrSeriesEntry);
    std::vector<CntrPortEntry> ports;
    for (const auto& p : portList) {
        ports.push_back({ p.guid, p.port, 0, 0 });
    }
    std::vector<CntrTimeBlockEntry> blockTable;
    for (const auto& b : blocks) {
        blockTable.push_back({ offset, b.size() });
        offset += b.size_bytes();
    }
    std::vector<CntrSeriesEntry> seriesTable;
    for (std::size_t i = 0; i < series.size(); ++i) {
        const auto& s = series[i];
        seriesTable.push_back(
            { s.port, static_cast<std::uint16_t>(s.kind), s.bits, s.storageBytes, seriesBlock[i], 0, offset });
        offset += align8(blocks[seriesBlock[i]].size() * s.storageBytes);
    }
    h.fileSize = offset;
    bool ok = put(out, &h, sizeof h) && put(out, ports.data(), ports.size() * sizeof(CntrPortEntry))
        && put(out, blockTable.data(), blockTable.size() * sizeof(CntrTimeBlockEntry))
        && put(out, seriesTable.data(), seriesTable.size() * sizeof(CntrSeriesEntry));
    for (std::size_t b = 0; ok && b < blocks.size(); ++b) {
        ok = putSpan(out, blocks[b]);
    }
    return ok ? std::string() : std::string("write failed");
}

std::string writeCountersBin(const JobSnapshot& snap, std::FILE* out)
{
    // Series that share a timestamp span (same sampler) share one time block on disk.
    std::vector<const TimeNs*> blockPtrs;
    std::vector<std::span<const TimeNs>> blocks;
    std::vector<std::uint32_t> seriesBlock;
    for (const auto& s : snap.counters) {
        auto it = std::find(blockPtrs.rbegin(), blockPtrs.rend(), s.timesNs.data());
        if (it != blockPtrs.rend() && blocks[blockPtrs.rend() - it - 1].size() == s.size()) {
            seriesBlock.push_back(static_cast<std::uint32_t>(blockPtrs.rend() - it - 1));
        } else {
            seriesBlock.push_back(static_cast<std::uint32_t>(blocks.size()));
            blockPtrs.push_back(s.timesNs.data());
            blocks.push_back(s.timesNs);
        }
    }
    if (auto err = writeCountersHead(snap.counterPorts, snap.counters, seriesBlock, blocks, out); !err.empty()) {
        return err;
    }
    bool ok = true;
    for (std::size_t i = 0; ok && i < snap.counters.size(); ++i) {
        const auto& s = snap.counters[i];
        ok = put(out, s.values, s.size() * s.storageBytes) && pad(out, s.size() * s.storageBytes);
    }
    return ok ? std::string() : std::string("write failed");
}

std::optional<LoadIssue> readCountersBin(const std::string& file, std::shared_ptr<MappedFile> map, JobSnapshot& snap)
{
    const std::uint64_t size = map->size();
    if (size < sizeof(CntrHeader)) {
        return at(file, 0, "file is " + std::to_string(size) + " bytes, shorter than the 64-byte header");
    }
    CntrHeader h;
    std::memcpy(&h, map->bytes().data(), sizeof h);
    if (std::memcmp(h.magic, kCntrMagic, 8) != 0) {
        return at(file, 0, "expected the magic \"SSCNTR01\" (not a Stallscope counters file)");
    }
    if (h.version != kFormatVersion) {
        return at(file, 8, "unsupported counters file version " + std::to_string(h.version));
    }
    if (h.fileSize != size) {
        return at(file, 48,
            "header says the file is " + std::to_string(h.fileSize) + " bytes but it is " + std::to_string(size)
                + " (truncated or appended to)");
    }
    if (!inside(h.portTableOffset, std::uint64_t(h.portCount) * sizeof(CntrPortEntry), size)
        || !inside(h.timeBlockTableOffset, std::uint64_t(h.timeBlockCount) * sizeof(CntrTimeBlockEntry), size)
        || !inside(h.seriesTableOffset, std::uint64_t(h.seriesCount) * sizeof(CntrSeriesEntry), size)) {
        return at(file, 24, "a table lies outside the file");
    }
    const auto* base = map->bytes().data();
    // Sized by the tables, which lie inside the file (checked above): 2.1 M series at 131,072 ranks, whose vector
    // grown one push at a time was copied 22 times.
    snap.counterPorts.reserve(snap.counterPorts.size() + h.portCount);
    snap.counters.reserve(snap.counters.size() + h.seriesCount);
    for (std::uint32_t i = 0; i < h.portCount; ++i) {
        CntrPortEntry e;
        std::memcpy(&e, base + h.portTableOffset + i * sizeof e, sizeof e);
        snap.counterPorts.push_back({ e.guid, e.port, std::nullopt });
    }
    std::vector<std::span<const TimeNs>> blocks;
    for (std::uint32_t i = 0; i < h.timeBlockCount; ++i) {
        CntrTimeBlockEntry e;
        const auto off = h.timeBlockTableOffset + i * sizeof e;
        std::memcpy(&e, base + off, sizeof e);
        if (e.count > size / 8 || !inside(e.offset, e.count * 8, size)) {
            return at(file, off, "time block " + std::to_string(i) + " lies outside the file");
        }
        auto times = spanAt<TimeNs>(*map, e.offset, e.count);
        if (!std::is_sorted(times.begin(), times.end())) {
            return at(file, e.offset, "time block " + std::to_string(i) + " is not sorted by time");
        }
        blocks.push_back(times);
    }
    for (std::uint32_t i = 0; i < h.seriesCount; ++i) {
        CntrSeriesEntry e;
        const auto off = h.seriesTableOffset + i * sizeof e;
        std::memcpy(&e, base + off, sizeof e);
        if (e.port >= h.portCount || e.timeBlock >= h.timeBlockCount || e.kind >= kCounterKindCount
            || e.storageBytes != storageBytesFor(e.bits)) {
            return at(file, off, "series " + std::to_string(i) + " names an unknown port, time block or counter");
        }
        const auto n = blocks[e.timeBlock].size();
        if (!inside(e.valuesOffset, n * e.storageBytes, size)) {
            return at(file, off, "series " + std::to_string(i) + "'s values lie outside the file");
        }
        CounterSeries s;
        s.port = e.port;
        s.kind = static_cast<CounterKind>(e.kind);
        s.bits = e.bits;
        s.storageBytes = e.storageBytes;
        s.timesNs = blocks[e.timeBlock];
        s.values = base + e.valuesOffset;
        snap.counters.push_back(s);
    }
    snap.storage.push_back(std::move(map));
    return std::nullopt;
}

} // namespace stallscope::bundle
