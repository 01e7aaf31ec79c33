// SPDX-License-Identifier: MIT
// The link heatmap's level 0 kept beside a bundle (`link_levels.bin`, docs/bundle-format.md): written when a bundle
// is made, read back only when it agrees with the snapshot in every dimension, so a stale or damaged file is never
// drawn and never sizes an allocation (the sizes come from the snapshot; the file must match them exactly).
#include "core/atomic_file.h"
#include "view/link_heatmap_model.h"

#include <cstring>
#include <filesystem>
#include <fstream>

namespace stallscope {

namespace {

constexpr char kMagic[8] = { 'S', 'S', 'L', 'N', 'K', 'L', 'V', '1' };
constexpr std::uint32_t kVersion = 1;

// Little-endian, fixed layout: what must agree with the snapshot before a byte of level 0 is trusted.
struct Header
{
    char magic[8];
    std::uint32_t version;
    std::uint32_t rows;
    std::int64_t t0;
    std::int64_t bucketNs;
    std::uint64_t buckets;
    std::uint64_t series; // counter series
    std::uint64_t samples; // counter samples over all series
    std::uint64_t events; // link events
};
static_assert(sizeof(Header) == 64);

Header headerOf(const JobSnapshot& s, std::uint32_t rows, TimeNs t0, TimeNs bucketNs, std::size_t buckets)
{
    Header h {};
    std::memcpy(h.magic, kMagic, sizeof kMagic);
    h.version = kVersion;
    h.rows = rows;
    h.t0 = t0;
    h.bucketNs = bucketNs;
    h.buckets = buckets;
    h.series = s.counters.size();
    for (const auto& c : s.counters) {
        h.samples += c.size();
    }
    h.events = s.linkEvents.size();
    return h;
}

} // namespace

std::shared_ptr<const LinkHeatmapModel> LinkHeatmapModel::load(
    std::shared_ptr<const JobSnapshot> snap, const std::string& file, std::string& why)
{
    auto m = shape(snap);
    const auto expected
        = headerOf(*snap, static_cast<std::uint32_t>(m->m_rows.size()), m->m_t0, m->m_bucket0, m->m_buckets[0]);
    const std::uint64_t cells = std::uint64_t(m->m_rows.size()) * m->m_buckets[0];
    std::error_code ec;
    const auto size = std::filesystem::file_size(file, ec);
    if (ec) {
        why = file + ": " + ec.message();
        return nullptr;
    }
    if (size != sizeof(Header) + cells) {
        why = file + ": " + std::to_string(size) + " bytes where these counters give "
            + std::to_string(sizeof(Header) + cells);
        return nullptr;
    }
    std::ifstream in(file, std::ios::binary);
    Header h {};
    if (!in.read(reinterpret_cast<char*>(&h), sizeof h) || std::memcmp(&h, &expected, sizeof h) != 0) {
        why = file + ": made from other counters, events or another version (header differs)";
        return nullptr;
    }
    std::vector<std::uint8_t> level0(cells);
    if (!in.read(reinterpret_cast<char*>(level0.data()), static_cast<std::streamsize>(cells))) {
        why = file + ": cut short";
        return nullptr;
    }
    for (const auto c : level0) {
        if (c >= kLinkCellCount) {
            why = file + ": a cell that is no link state";
            return nullptr;
        }
    }
    m->m_levels.push_back(std::move(level0));
    m->buildLevels();
    return m;
}

std::shared_ptr<const LinkHeatmapModel> LinkHeatmapModel::loadOrBuild(
    std::shared_ptr<const JobSnapshot> snap, const std::string& dir, Progress& progress)
{
    const auto file = (std::filesystem::path(dir) / "link_levels.bin").string();
    std::error_code ec;
    if (!dir.empty() && std::filesystem::is_regular_file(file, ec)) {
        std::string why;
        if (auto m = load(snap, file, why)) {
            return m;
        }
    }
    return build(std::move(snap), progress);
}

std::string LinkHeatmapModel::save(const std::string& file) const
{
    const auto h = headerOf(*m_snap, static_cast<std::uint32_t>(m_rows.size()), m_t0, m_bucket0, m_buckets[0]);
    std::string bytes(reinterpret_cast<const char*>(&h), sizeof h);
    bytes.append(reinterpret_cast<const char*>(m_levels[0].data()), m_levels[0].size());
    return writeFileAtomic(file, bytes);
}

} // namespace stallscope
