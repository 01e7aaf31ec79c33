// SPDX-License-Identifier: MIT
#include "sim/record_spill.h"

#include "bundle/writer.h"
#include "core/atomic_file.h"
#include "core/scratch_file.h"

#include <algorithm>
#include <memory>

namespace stallscope::sim {

namespace {

struct FileCloser
{
    void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

} // namespace

RecordSpill::RecordSpill(std::uint32_t ranks, std::filesystem::path dir, std::uint64_t budgetBytes)
    : m_dir(std::move(dir))
    , m_budgetRecords(std::max<std::uint64_t>(1, budgetBytes / sizeof(Record)))
    , m_held(ranks)
{
}

RecordSpill::~RecordSpill()
{
    std::error_code ec;
    for (std::size_t k = 0; k < m_chunkCounts.size(); ++k) {
        std::filesystem::remove(chunkPath(k), ec);
    }
}

std::filesystem::path RecordSpill::chunkPath(std::size_t k) const
{
    return m_dir / ("records-" + std::to_string(k) + ".chunk");
}

void RecordSpill::push(std::uint32_t rank, TimeNs enqueue, TimeNs start, TimeNs end, std::uint32_t seq,
    std::uint16_t shape, CollectiveState state)
{
    m_held[rank].push_back({ enqueue, start, end, seq, shape, static_cast<std::uint8_t>(state), 0 });
    ++m_records;
    if (++m_heldRecords >= m_budgetRecords && m_error.empty()) {
        writeChunk();
    }
}

void RecordSpill::writeChunk()
{
    const auto path = chunkPath(m_chunkCounts.size());
    std::vector<std::uint32_t> counts(m_held.size());
    DurableFile out(path);
    bool ok = static_cast<bool>(out);
    for (std::size_t r = 0; ok && r < m_held.size(); ++r) {
        auto& held = m_held[r];
        counts[r] = static_cast<std::uint32_t>(held.size());
        ok = held.empty() || std::fwrite(held.data(), sizeof(Record), held.size(), out.handle()) == held.size();
        held.clear(); // keeps its capacity: the next chunk's records of this rank are about as many
    }
    m_chunkCounts.push_back(std::move(counts)); // listed even when it failed, so the destructor removes it
    const auto err = ok ? out.finish() : errnoText();
    if (!err.empty()) {
        m_error = path.string() + ": " + err;
    }
    m_heldRecords = 0;
}

std::string RecordSpill::finish(const std::vector<CollectiveShape>& shapes, const std::string& path)
{
    if (!m_error.empty()) {
        return m_error;
    }
    const auto ranks = static_cast<std::uint32_t>(m_held.size());
    std::vector<std::uint64_t> counts(ranks);
    for (std::uint32_t r = 0; r < ranks; ++r) {
        counts[r] = m_held[r].size();
        for (const auto& chunk : m_chunkCounts) {
            counts[r] += chunk[r];
        }
    }
    std::vector<File> chunks;
    for (std::size_t k = 0; k < m_chunkCounts.size(); ++k) {
        chunks.emplace_back(std::fopen(chunkPath(k).c_str(), "r+b")); // r+: releaseReadPart punches holes
        if (!chunks.back()) {
            return chunkPath(k).string() + ": " + errnoText();
        }
        std::setvbuf(chunks.back().get(), nullptr, _IOFBF, 1 << 20); // every chunk read front to back
    }
    // One rank's records gathered from the chunks and transposed into collectives.bin's columns.
    std::vector<Record> rows;
    std::vector<TimeNs> enqueue, start, end;
    std::vector<std::uint32_t> seq;
    std::vector<std::uint16_t> shape;
    std::vector<std::uint8_t> state, flags;
    std::string readError;
    const auto block = [&](std::uint32_t r) {
        rows.resize(counts[r]);
        std::size_t at = 0;
        for (std::size_t k = 0; k < chunks.size(); ++k) {
            const auto n = m_chunkCounts[k][r];
            if (n > 0 && std::fread(rows.data() + at, sizeof(Record), n, chunks[k].get()) != n) {
                readError = chunkPath(k).string() + ": cut short while reading it back";
                rows.resize(at); // writeCollectivesBin refuses the short block
                break;
            }
            at += n;
        }
        if (r % 1024 == 1023) {
            for (auto& chunk : chunks) { // the ranks written so far: their part of each chunk is not read again
                releaseReadPart(chunk.get());
            }
        }
        if (readError.empty()) {
            std::copy(m_held[r].begin(), m_held[r].end(), rows.begin() + static_cast<std::ptrdiff_t>(at));
        }
        const auto column = [&](auto& out, auto field) {
            out.resize(rows.size());
            std::transform(rows.begin(), rows.end(), out.begin(), field);
        };
        column(enqueue, [](const Record& x) { return x.enqueue; });
        column(start, [](const Record& x) { return x.start; });
        column(end, [](const Record& x) { return x.end; });
        column(seq, [](const Record& x) { return x.seq; });
        column(shape, [](const Record& x) { return x.shape; });
        column(state, [](const Record& x) { return x.state; });
        column(flags, [](const Record& x) { return x.flags; });
        return RankCollectives { enqueue, start, end, seq, shape, state, flags };
    };
    auto err = writeCollectivesFile(path, shapes, counts, block);
    return readError.empty() ? err : readError;
}

} // namespace stallscope::sim
