// SPDX-License-Identifier: MIT
#pragma once

// The simulator's collective records when a job's records are more than its memory budget (131,072 ranks × 10 min
// is 386 M records, 12 GB). The simulator makes them step by step, every rank's in turn; collectives.bin wants them
// rank by rank. So each rank's records are held until the held ones reach the budget, then written out as a chunk
// file, rank after rank; at the end collectives.bin is written rank after rank, each rank's block read from every
// chunk in turn (each chunk file is read once, front to back) and from what is still held.
// Memory: the budget, one rank's block and a read buffer per chunk. Disk: the records once and a little more: as
// collectives.bin grows, the part of each chunk already read is released (releaseReadPart), and the chunks are
// removed at the end. One thread.

#include "core/collectives.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace stallscope::sim {

class RecordSpill
{
public:
    // Chunk files go in `dir` (which must exist); `budgetBytes` of records are held before a chunk is written.
    RecordSpill(std::uint32_t ranks, std::filesystem::path dir, std::uint64_t budgetBytes);
    ~RecordSpill(); // removes the chunk files
    RecordSpill(const RecordSpill&) = delete;
    RecordSpill& operator=(const RecordSpill&) = delete;

    // A rank's records come in enqueue order.
    void push(std::uint32_t rank, TimeNs enqueue, TimeNs start, TimeNs end, std::uint32_t seq, std::uint16_t shape,
        CollectiveState state);
    std::uint64_t records() const { return m_records; }
    std::uint32_t chunks() const { return static_cast<std::uint32_t>(m_chunkCounts.size()); }
    // The first failure to write a chunk ("" while there is none): the records after it are not kept.
    const std::string& error() const { return m_error; }
    // Writes every record as collectives.bin at `path` (bundle/writer.h) and removes the chunks; "" or why not.
    std::string finish(const std::vector<CollectiveShape>& shapes, const std::string& path);

private:
    // One record as a chunk holds it: 32 bytes, the columns of collectives.bin side by side.
    struct Record
    {
        TimeNs enqueue, start, end;
        std::uint32_t seq;
        std::uint16_t shape;
        std::uint8_t state, flags;
    };
    static_assert(sizeof(Record) == 32);

    void writeChunk();
    std::filesystem::path chunkPath(std::size_t k) const;

    std::filesystem::path m_dir;
    std::uint64_t m_budgetRecords;
    std::vector<std::vector<Record>> m_held; // per rank, since the last chunk
    std::uint64_t m_heldRecords = 0;
    std::vector<std::vector<std::uint32_t>> m_chunkCounts; // [chunk][rank]: how many records of the rank it holds
    std::uint64_t m_records = 0;
    std::string m_error;
};

} // namespace stallscope::sim
