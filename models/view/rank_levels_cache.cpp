// SPDX-License-Identifier: MIT
// The rank heatmap's level 0 kept beside a bundle (`rank_levels.bin`, docs/bundle-format.md): written when a bundle
// is made, read back only when it agrees with the snapshot — same ranks, span and bucket, the same record counts and
// ends of every rank, and cells whose checksum holds — so opening a job of 131,072 ranks draws its first frame
// without reading every record first, and a stale or damaged file is never drawn. Nothing is sized by the file's own
// numbers: the sizes come from the snapshot and the file must match them exactly.
#include "core/atomic_file.h"
#include "view/heatmap_model.h"

#include <cstring>
#include <filesystem>
#include <fstream>

namespace stallscope {

namespace {

constexpr char kMagic[8] = { 'S', 'S', 'R', 'N', 'K', 'L', 'V', '1' };
// Bumped whenever what a level-0 cell holds or how it is computed changes (HeatmapModel::build): an older file is
// then built anew rather than drawn.
constexpr std::uint32_t kVersion = 1;

// Little-endian, fixed layout: what must agree with the snapshot before a byte of level 0 is trusted.
struct Header
{
    char magic[8];
    std::uint32_t version;
    std::uint32_t ranks;
    std::int64_t t0; // level 0's first instant, epoch ns
    std::int64_t bucketNs;
    std::uint64_t buckets; // per rank
    std::uint64_t records; // over all ranks
    std::uint64_t recordsDigest; // each rank's record count, first enqueue, last enqueue and last end (FNV-1a)
    std::uint64_t cellsChecksum; // of the cells that follow (checksumOf)
};
static_assert(sizeof(Header) == 64);

constexpr std::uint64_t kFnvBasis = 14695981039346656037ull;
constexpr std::uint64_t kFnvPrime = 1099511628211ull;

void mix(std::uint64_t& h, std::uint64_t v)
{
    for (int i = 0; i < 8; ++i) {
        h = (h ^ ((v >> (8 * i)) & 0xff)) * kFnvPrime;
    }
}

// O(ranks): what a rewritten collectives file would most likely change (a rank's count or its ends).
std::uint64_t recordsDigest(const JobSnapshot& s)
{
    std::uint64_t h = kFnvBasis;
    for (const auto& c : s.collectives) {
        mix(h, c.size());
        if (c.size() > 0) {
            mix(h, static_cast<std::uint64_t>(c.enqueueNs.front()));
            mix(h, static_cast<std::uint64_t>(c.enqueueNs.back()));
            mix(h, static_cast<std::uint64_t>(c.endNs.back()));
        }
    }
    return h;
}

// A word-wise checksum of the cells (about 10 GB/s): a flipped or zeroed stretch of the file changes it.
std::uint64_t checksumOf(const std::vector<LevelCell>& cells)
{
    const auto* bytes = reinterpret_cast<const unsigned char*>(cells.data());
    const std::size_t n = cells.size() * sizeof(LevelCell);
    std::uint64_t a = 1, b = 0;
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        std::uint64_t w;
        std::memcpy(&w, bytes + i, 8);
        a += w;
        b += a; // position matters: a swapped pair of words changes b
    }
    for (; i < n; ++i) {
        a += bytes[i];
        b += a;
    }
    return a ^ (b * 0x9e3779b97f4a7c15ull);
}

std::uint64_t recordCount(const JobSnapshot& s)
{
    std::uint64_t n = 0;
    for (const auto& c : s.collectives) {
        n += c.size();
    }
    return n;
}

Header headerOf(const JobSnapshot& s, TimeNs t0, TimeNs bucketNs, std::size_t buckets)
{
    Header h {};
    std::memcpy(h.magic, kMagic, sizeof kMagic);
    h.version = kVersion;
    h.ranks = static_cast<std::uint32_t>(s.collectives.size());
    h.t0 = t0;
    h.bucketNs = bucketNs;
    h.buckets = buckets;
    h.records = recordCount(s);
    h.recordsDigest = recordsDigest(s);
    return h;
}

} // namespace

std::size_t HeatmapModel::baseBucketsFor(const JobSnapshot& s, TimeNs bucketNs)
{
    const TimeNs span = std::max<TimeNs>(s.job.span.delta(), 1);
    return static_cast<std::size_t>((span + bucketNs - 1) / bucketNs);
}

std::shared_ptr<const HeatmapModel> HeatmapModel::load(SnapshotPtr snap, const std::string& file, std::string& why)
{
    auto m = shell(std::move(snap), {});
    if (m->m_logRows) {
        why = file + ": this job's logs add to its rows, which the file does not hold";
        return nullptr;
    }
    const auto& s = *m->m_snap;
    m->m_baseNs = baseBucketFor(std::max<TimeNs>(s.job.span.delta(), 1), s.collectives.size());
    const auto n0 = baseBucketsFor(s, m->m_baseNs);
    auto expected = headerOf(s, m->m_originNs, m->m_baseNs, n0);
    const std::uint64_t cells = std::uint64_t(s.collectives.size()) * n0;
    std::error_code ec;
    const auto size = std::filesystem::file_size(file, ec);
    if (ec) {
        why = file + ": " + ec.message();
        return nullptr;
    }
    if (size != sizeof(Header) + cells * sizeof(LevelCell)) {
        why = file + ": " + std::to_string(size) + " bytes where these records give "
            + std::to_string(sizeof(Header) + cells * sizeof(LevelCell));
        return nullptr;
    }
    std::ifstream in(file, std::ios::binary);
    Header h {};
    if (!in.read(reinterpret_cast<char*>(&h), sizeof h)) {
        why = file + ": cut short in its header";
        return nullptr;
    }
    expected.cellsChecksum = h.cellsChecksum; // checked against the cells below
    if (std::memcmp(&h, &expected, sizeof h) != 0) {
        why = file + ": made from other records, another span or another version (header differs)";
        return nullptr;
    }
    auto levels = std::make_shared<Levels>();
    levels->bucketsAt.push_back(n0);
    levels->cells.emplace_back(cells);
    if (!in.read(reinterpret_cast<char*>(levels->cells[0].data()),
            static_cast<std::streamsize>(cells * sizeof(LevelCell)))) {
        why = file + ": cut short";
        return nullptr;
    }
    if (checksumOf(levels->cells[0]) != h.cellsChecksum) {
        why = file + ": its cells do not match their checksum (damaged)";
        return nullptr;
    }
    addCoarserLevels(*levels, static_cast<std::uint32_t>(s.collectives.size()));
    m->m_levels = std::move(levels);
    m->m_levelsFromFile = true;
    return m;
}

std::shared_ptr<const HeatmapModel> HeatmapModel::loadOrBuild(
    SnapshotPtr snap, const std::string& dir, Progress& progress)
{
    const auto file = (std::filesystem::path(dir) / "rank_levels.bin").string();
    std::error_code ec;
    if (!dir.empty() && std::filesystem::is_regular_file(file, ec)) {
        std::string why;
        if (auto m = load(snap, file, why)) {
            return m;
        }
    }
    return build(std::move(snap), {}, progress);
}

std::string HeatmapModel::save(const std::string& file) const
{
    if (m_levels->cells.empty()) {
        return "no levels to keep (drawn from the records alone)";
    }
    auto h = headerOf(*m_snap, m_originNs, m_baseNs, m_levels->bucketsAt[0]);
    h.cellsChecksum = checksumOf(m_levels->cells[0]);
    std::string bytes(reinterpret_cast<const char*>(&h), sizeof h);
    bytes.append(
        reinterpret_cast<const char*>(m_levels->cells[0].data()), m_levels->cells[0].size() * sizeof(LevelCell));
    return writeFileAtomic(file, bytes);
}

} // namespace stallscope
