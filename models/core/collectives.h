// SPDX-License-Identifier: MIT
#pragma once

// Collective records, stored struct-of-arrays per rank, sorted by enqueue time.
//
// Memory per record: 32 bytes exactly —
//   enqueueNs, startNs, endNs   3 × int64   24 bytes (kNoTime when not observed)
//   seq                         uint32       4 bytes (per-process-group collective sequence number)
//   shape                       uint16       2 bytes (index into the snapshot's shape table: group, op, bytes)
//   state                       uint8        1 byte  (CollectiveState)
//   flags                       uint8        1 byte  (reserved, 0)
// Repeated (group, op, bytes) triples are interned as shapes because a training job issues the same few
// bucket sizes every step; a bundle may hold at most 65,535 distinct shapes.
//
// Columns are views (std::span) into storage owned by the snapshot (a mapped file or an arena); immutable,
// safe to read from any thread.

#include "core/types.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace stallscope {

enum class CollectiveOp : std::uint8_t {
    AllReduce,
    AllGather,
    ReduceScatter,
    Broadcast,
    Reduce,
    AllToAll,
    Barrier,
    Send,
    Recv,
    Other,
};
inline constexpr int kCollectiveOpCount = 10;

// An unfinished record (Scheduled, Started) is normal data: it is what a hang looks like.
enum class CollectiveState : std::uint8_t { Scheduled, Started, Completed, Failed, TimedOut };
inline constexpr int kCollectiveStateCount = 5;

std::string_view toString(CollectiveOp op); // "all_reduce", ...
std::string_view toString(CollectiveState state); // "completed", ...
std::optional<CollectiveOp> parseCollectiveOp(std::string_view s);
std::optional<CollectiveState> parseCollectiveState(std::string_view s);

struct CollectiveShape
{
    std::uint16_t group = 0; // index into JobSnapshot::groups
    CollectiveOp op = CollectiveOp::AllReduce;
    std::uint64_t bytes = 0; // payload per rank (input tensor bytes)
    friend bool operator==(const CollectiveShape&, const CollectiveShape&) = default;
};

// One rank's records. All spans have the same length.
struct RankCollectives
{
    std::span<const TimeNs> enqueueNs;
    std::span<const TimeNs> startNs;
    std::span<const TimeNs> endNs;
    std::span<const std::uint32_t> seq;
    std::span<const std::uint16_t> shape;
    std::span<const std::uint8_t> state;
    std::span<const std::uint8_t> flags;

    std::size_t size() const { return enqueueNs.size(); }
    CollectiveState stateAt(std::size_t i) const { return static_cast<CollectiveState>(state[i]); }
};

// Enqueue order is not run order across groups: a long collective of one group may have been enqueued before several
// short ones of another. This many records back covers every group a job interleaves (recordAt, and where a rank's
// records end in the heatmap).
inline constexpr std::size_t kInterleavedRecords = 32;

// Which record a rank was in at time t, for people pointing at it (tooltips): the one that had started and not yet
// ended (collectives of several groups or streams overlap; the newest such one of the last 32 enqueued), else the
// last one enqueued at or before t. `running` says which of the two it is. Empty before the rank's first record.
struct RecordAt
{
    std::size_t index = 0;
    bool running = false;
};
std::optional<RecordAt> recordAt(const RankCollectives& c, TimeNs t);

inline constexpr std::size_t kBytesPerCollectiveRecord
    = 3 * sizeof(TimeNs) + sizeof(std::uint32_t) + sizeof(std::uint16_t) + 2 * sizeof(std::uint8_t);
static_assert(kBytesPerCollectiveRecord == 32);

} // namespace stallscope
