// SPDX-License-Identifier: MIT
#pragma once

// On-disk layout of the Stallscope bundle format v1 (docs/bundle-format.md is the specification; keep the
// two in sync). All binary integers are little-endian; every column starts 8-byte aligned so a mapped file
// can be used in place.

#include <cstdint>
#include <string_view>

namespace stallscope::bundle {

inline constexpr int kFormatVersion = 1;
inline constexpr std::string_view kFormatName = "stallscope-bundle";

inline constexpr std::string_view kManifestFile = "manifest.json";
inline constexpr std::string_view kCollectivesBinFile = "collectives.bin";
inline constexpr std::string_view kCollectivesJsonlFile = "collectives.jsonl";
inline constexpr std::string_view kCountersBinFile = "counters.bin";
inline constexpr std::string_view kCountersJsonlFile = "counters.jsonl";
inline constexpr std::string_view kLinkEventsFile = "link_events.jsonl";
inline constexpr std::string_view kTopologyFile = "topology.json";

inline constexpr char kCollMagic[8] = { 'S', 'S', 'C', 'O', 'L', 'L', '0', '1' };
inline constexpr char kCntrMagic[8] = { 'S', 'S', 'C', 'N', 'T', 'R', '0', '1' };

struct CollHeader
{ // 64 bytes at offset 0 of collectives.bin
    char magic[8];
    std::uint32_t version;
    std::uint32_t rankCount;
    std::uint32_t shapeCount;
    std::uint32_t reserved0;
    std::uint64_t shapeTableOffset;
    std::uint64_t rankTableOffset;
    std::uint64_t fileSize;
    std::uint64_t reserved1[2];
};
static_assert(sizeof(CollHeader) == 64);

struct CollShapeEntry
{ // 16 bytes
    std::uint16_t group;
    std::uint8_t op;
    std::uint8_t reserved0;
    std::uint32_t reserved1;
    std::uint64_t bytes;
};
static_assert(sizeof(CollShapeEntry) == 16);

struct CollRankEntry
{ // 16 bytes; columns of the rank's block follow each other from `offset`
    std::uint64_t offset;
    std::uint64_t count;
};
static_assert(sizeof(CollRankEntry) == 16);

struct CntrHeader
{ // 64 bytes at offset 0 of counters.bin
    char magic[8];
    std::uint32_t version;
    std::uint32_t portCount;
    std::uint32_t seriesCount;
    std::uint32_t timeBlockCount;
    std::uint64_t portTableOffset;
    std::uint64_t timeBlockTableOffset;
    std::uint64_t seriesTableOffset;
    std::uint64_t fileSize;
    std::uint64_t reserved;
};
static_assert(sizeof(CntrHeader) == 64);

struct CntrPortEntry
{ // 16 bytes
    std::uint64_t guid;
    std::uint16_t port;
    std::uint16_t reserved0;
    std::uint32_t reserved1;
};
static_assert(sizeof(CntrPortEntry) == 16);

struct CntrTimeBlockEntry
{ // 16 bytes
    std::uint64_t offset;
    std::uint64_t count;
};
static_assert(sizeof(CntrTimeBlockEntry) == 16);

struct CntrSeriesEntry
{ // 24 bytes
    std::uint32_t port;
    std::uint16_t kind;
    std::uint8_t bits;
    std::uint8_t storageBytes;
    std::uint32_t timeBlock;
    std::uint32_t reserved;
    std::uint64_t valuesOffset;
};
static_assert(sizeof(CntrSeriesEntry) == 24);

// Bytes of one rank's column block for `n` records, padded to 8.
constexpr std::uint64_t collBlockBytes(std::uint64_t n)
{
    return (n * 32 + 7) & ~std::uint64_t(7);
}
constexpr std::uint64_t align8(std::uint64_t v)
{
    return (v + 7) & ~std::uint64_t(7);
}

} // namespace stallscope::bundle
