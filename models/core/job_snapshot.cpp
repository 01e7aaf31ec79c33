// SPDX-License-Identifier: MIT
#include "core/job_snapshot.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

namespace stallscope {

std::uint64_t JobSnapshot::collectiveCount() const
{
    std::uint64_t n = 0;
    for (const auto& r : collectives) {
        n += r.size();
    }
    return n;
}

std::uint64_t JobSnapshot::counterSampleCount() const
{
    std::uint64_t n = 0;
    for (const auto& s : counters) {
        n += s.size();
    }
    return n;
}

std::uint64_t JobSnapshot::memoryBytes() const
{
    // Column storage is accounted by whoever owns it; tables are small and estimated from capacities.
    std::uint64_t bytes = sizeof(JobSnapshot);
    bytes += collectives.capacity() * sizeof(RankCollectives) + counters.capacity() * sizeof(CounterSeries);
    bytes += ranks.capacity() * sizeof(RankInfo) + shapes.capacity() * sizeof(CollectiveShape);
    bytes += notes.capacity() * sizeof(HostNote);
    bytes += logFacts.capacity() * sizeof(LogFact);
    bytes += linkEvents.capacity() * sizeof(LinkEvent) + counterPorts.capacity() * sizeof(CounterPort);
    for (const auto& g : groups) {
        bytes += sizeof(ProcessGroup) + g.ranks.capacity() * sizeof(std::uint32_t);
    }
    bytes += topology.nodes().capacity() * sizeof(FabricNode) + topology.links().capacity() * sizeof(FabricLink);
    bytes += strings.memoryBytes();
    return bytes;
}

void OwnedRankColumns::reserve(std::size_t n)
{
    enqueueNs.reserve(n);
    startNs.reserve(n);
    endNs.reserve(n);
    seq.reserve(n);
    shape.reserve(n);
    state.reserve(n);
    flags.reserve(n);
}

void OwnedRankColumns::push(
    TimeNs enqueue, TimeNs start, TimeNs end, std::uint32_t seqNo, std::uint16_t shapeId, CollectiveState st)
{
    enqueueNs.push_back(enqueue);
    startNs.push_back(start);
    endNs.push_back(end);
    seq.push_back(seqNo);
    shape.push_back(shapeId);
    state.push_back(static_cast<std::uint8_t>(st));
    flags.push_back(0);
}

void OwnedRankColumns::sortByEnqueue()
{
    if (std::is_sorted(enqueueNs.begin(), enqueueNs.end())) {
        return;
    }
    std::vector<std::uint32_t> order(size());
    std::iota(order.begin(), order.end(), 0U);
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return enqueueNs[a] < enqueueNs[b]; });
    auto permute = [&](auto& col) {
        auto copy = col;
        for (std::size_t i = 0; i < order.size(); ++i) {
            col[i] = copy[order[i]];
        }
    };
    permute(enqueueNs);
    permute(startNs);
    permute(endNs);
    permute(seq);
    permute(shape);
    permute(state);
    permute(flags);
}

RankCollectives OwnedRankColumns::view() const
{
    return RankCollectives { enqueueNs, startNs, endNs, seq, shape, state, flags };
}

std::uint64_t OwnedColumns::memoryBytes() const
{
    std::uint64_t bytes = 0;
    for (const auto& r : ranks) {
        bytes += r.enqueueNs.capacity() * 24 + r.seq.capacity() * 4 + r.shape.capacity() * 2 + r.state.capacity()
            + r.flags.capacity();
    }
    for (const auto& t : counterTimes) {
        bytes += t.capacity() * sizeof(TimeNs);
    }
    for (const auto& v : counterValues) {
        bytes += v.capacity();
    }
    return bytes;
}

void attachOwnedColumns(
    JobSnapshot& snap, std::shared_ptr<OwnedColumns> owned, const std::vector<std::uint32_t>& seriesTimeBlock)
{
    if (!owned->ranks.empty()) {
        snap.collectives.clear();
        snap.collectives.reserve(owned->ranks.size());
        for (const auto& r : owned->ranks) {
            snap.collectives.push_back(r.view());
        }
    }
    for (std::size_t i = 0; i < seriesTimeBlock.size(); ++i) {
        auto& s = snap.counters[i];
        s.timesNs = owned->counterTimes.at(seriesTimeBlock.at(i));
        s.values = owned->counterValues.at(i).data();
    }
    snap.storage.push_back(std::move(owned));
}

std::optional<std::uint16_t> internShape(std::vector<CollectiveShape>& shapes, const CollectiveShape& s)
{
    // Linear scan: real jobs have a handful of shapes; recent ones are checked first.
    for (std::size_t i = shapes.size(); i-- > 0;) {
        if (shapes[i] == s) {
            return static_cast<std::uint16_t>(i);
        }
    }
    if (shapes.size() >= 0xFFFF) {
        return std::nullopt;
    }
    shapes.push_back(s);
    return static_cast<std::uint16_t>(shapes.size() - 1);
}

void resolveJoins(JobSnapshot& snap)
{
    std::unordered_map<std::string, NodeId> byDesc;
    const auto& nodes = snap.topology.nodes();
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        byDesc.emplace(snap.str(nodes[i].description), static_cast<NodeId>(i));
    }
    for (auto& r : snap.ranks) {
        auto it = byDesc.find(snap.str(r.host) + ' ' + snap.str(r.hca));
        r.hcaNode = it == byDesc.end() ? std::nullopt : std::optional<NodeId>(it->second);
    }
    for (auto& p : snap.counterPorts) {
        p.node = snap.topology.findNodeByGuid(p.guid);
    }
}

void sortNotes(std::vector<HostNote>& notes)
{
    std::stable_sort(notes.begin(), notes.end(), [](const HostNote& a, const HostNote& b) {
        return std::pair(a.timeNs == kNoTime, a.timeNs) < std::pair(b.timeNs == kNoTime, b.timeNs);
    });
}

} // namespace stallscope
