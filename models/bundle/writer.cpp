// SPDX-License-Identifier: MIT
#include "bundle/writer.h"

#include "bundle/binary.h"
#include "bundle/format.h"
#include "bundle/json.h"
#include "core/atomic_file.h"
#include "core/scratch_file.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace stallscope {

namespace fs = std::filesystem;

namespace {

template <typename Fn> std::string writeStream(const fs::path& path, Fn fn)
{
    std::ofstream out(path, std::ios::binary);
    if (!out) {
        return path.string() + ": " + errnoText();
    }
    fn(out);
    out.flush();
    if (!out) {
        return path.string() + ": write failed";
    }
    return {};
}

template <typename Fn> std::string writeBinary(const fs::path& path, Fn fn)
{
    DurableFile out(path);
    if (!out) {
        return path.string() + ": " + errnoText();
    }
    if (auto err = fn(out.handle()); !err.empty()) {
        return path.string() + ": " + err + " (" + errnoText() + ")";
    }
    auto err = out.finish();
    return err.empty() ? err : path.string() + ": " + err;
}

// A finished file into the bundle being assembled: renamed when on the same file system, else copied.
std::string moveInto(const fs::path& from, const fs::path& to)
{
    std::error_code ec;
    fs::rename(from, to, ec);
    if (ec) {
        fs::copy_file(from, to, ec);
    }
    return ec ? from.string() + ": cannot move it into the bundle: " + ec.message() : std::string();
}

std::string writeParts(const JobSnapshot& snap, const fs::path& dir, const BundleWriteOptions& options)
{
    bundle::ManifestFiles files;
    const bool binColl = options.collectives == ColumnFormat::Binary;
    const bool binCntr = options.counters == ColumnFormat::Binary;
    files.collectives = binColl ? bundle::kCollectivesBinFile : bundle::kCollectivesJsonlFile;
    if (!snap.counters.empty()) {
        files.counters = binCntr ? bundle::kCountersBinFile : bundle::kCountersJsonlFile;
    }
    files.linkEvents = bundle::kLinkEventsFile;
    if (!snap.topology.nodes().empty()) {
        files.topology = bundle::kTopologyFile;
    }
    std::string err;
    if (binColl && !options.collectivesFile.empty()) {
        err = moveInto(options.collectivesFile, dir / files.collectives);
    } else if (binColl) {
        err = writeBinary(dir / files.collectives, [&](std::FILE* f) { return bundle::writeCollectivesBin(snap, f); });
    } else {
        err = writeStream(dir / files.collectives, [&](std::ostream& o) { bundle::writeCollectivesJsonl(snap, o); });
    }
    if (err.empty() && !files.counters.empty()) {
        if (binCntr && !options.countersFile.empty()) {
            err = moveInto(options.countersFile, dir / files.counters);
        } else if (binCntr) {
            err = writeBinary(dir / files.counters, [&](std::FILE* f) { return bundle::writeCountersBin(snap, f); });
        } else {
            err = writeStream(dir / files.counters, [&](std::ostream& o) { bundle::writeCountersJsonl(snap, o); });
        }
    }
    if (err.empty()) {
        err = writeStream(dir / files.linkEvents, [&](std::ostream& o) { bundle::writeLinkEventsJsonl(snap, o); });
    }
    if (err.empty() && !files.topology.empty()) {
        err = writeFileDurably(dir / files.topology, bundle::topologyToJson(snap));
    }
    if (err.empty()) {
        // The manifest goes last: a folder without it is not a bundle.
        err = writeFileDurably(dir / bundle::kManifestFile, bundle::manifestToJson(snap, files));
    }
    return err;
}

} // namespace

std::string writeBundle(const JobSnapshot& snap, const std::string& dirPath, const BundleWriteOptions& options)
{
    std::error_code ec;
    const fs::path target = absoluteFolder(dirPath);
    const fs::path parent = target.parent_path();
    if (!parent.empty() && !fs::exists(parent, ec)) {
        fs::create_directories(parent, ec);
        if (ec) {
            return parent.string() + ": cannot create folder: " + ec.message();
        }
    }
    if (fs::exists(target, ec)) {
        if (!options.replaceExisting) {
            return target.string() + ": already exists";
        }
        if (!fs::is_directory(target, ec)
            || (!fs::exists(target / bundle::kManifestFile, ec) && !fs::is_empty(target, ec))) {
            return target.string() + ": exists and is not a Stallscope bundle; refusing to replace it";
        }
    }
    const fs::path temp = target.string() + ".partial-" + std::to_string(::getpid());
    fs::remove_all(temp, ec);
    if (!fs::create_directory(temp, ec)) {
        return temp.string() + ": cannot create folder: " + ec.message();
    }
    if (auto err = writeParts(snap, temp, options); !err.empty()) {
        fs::remove_all(temp, ec);
        return err;
    }
    // Swap into place: old bundle aside, new one in, old one removed.
    const fs::path old = target.string() + ".old-" + std::to_string(::getpid());
    const bool hadOld = fs::exists(target, ec);
    if (hadOld) {
        fs::rename(target, old, ec);
        if (ec) {
            fs::remove_all(temp, ec);
            return target.string() + ": cannot replace: " + ec.message();
        }
    }
    fs::rename(temp, target, ec);
    if (ec) {
        const auto msg = ec.message();
        if (hadOld) {
            fs::rename(old, target, ec);
        }
        fs::remove_all(temp, ec);
        return target.string() + ": cannot move the new bundle into place: " + msg;
    }
    if (hadOld) {
        fs::remove_all(old, ec);
    }
    return {};
}

std::string writeCollectivesFile(const std::string& path, const std::vector<CollectiveShape>& shapes,
    std::span<const std::uint64_t> counts, const std::function<RankCollectives(std::uint32_t)>& rankBlock)
{
    return writeBinary(path, [&](std::FILE* f) { return bundle::writeCollectivesBin(shapes, counts, rankBlock, f); });
}

std::string writeCountersFile(const std::string& path, const std::vector<CounterPort>& ports,
    const std::vector<CounterSeries>& series, const std::vector<std::uint32_t>& seriesBlock,
    const std::vector<std::vector<TimeNs>>& blocks, const std::string& valuesPath)
{
    // Time blocks in the order the series first use them, unused ones left out: as writeCountersBin lays out a
    // snapshot's, so the same series make the same file.
    std::vector<std::uint32_t> onDisk(blocks.size(), UINT32_MAX);
    std::vector<std::span<const TimeNs>> spans;
    std::vector<std::uint32_t> remapped;
    remapped.reserve(seriesBlock.size());
    for (const auto b : seriesBlock) {
        if (onDisk.at(b) == UINT32_MAX) {
            onDisk[b] = static_cast<std::uint32_t>(spans.size());
            spans.push_back(blocks[b]);
        }
        remapped.push_back(onDisk[b]);
    }
    return writeBinary(path, [&](std::FILE* out) {
        if (auto err = bundle::writeCountersHead(ports, series, remapped, spans, out); !err.empty()) {
            return err;
        }
        std::FILE* in = std::fopen(valuesPath.c_str(), "r+b"); // r+: releaseReadPart punches holes
        if (!in) {
            return valuesPath + ": " + errnoText();
        }
        std::vector<char> buffer(1 << 20);
        std::size_t got = 0;
        bool ok = true;
        std::uint64_t copied = 0;
        while (ok && (got = std::fread(buffer.data(), 1, buffer.size(), in)) > 0) {
            ok = std::fwrite(buffer.data(), 1, got, out) == got;
            if ((copied += got) % (64u << 20) == 0) {
                releaseReadPart(in); // the values file is the caller's scratch: its copied part is not read again
            }
        }
        const bool readFailed = std::ferror(in) != 0;
        std::fclose(in);
        return readFailed ? valuesPath + ": read failed" : ok ? std::string() : std::string("write failed");
    });
}

} // namespace stallscope
