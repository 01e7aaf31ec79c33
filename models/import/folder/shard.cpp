// SPDX-License-Identifier: MIT
// Writing a shard of a raw folder, and reading the folder with all its shards (shard.h).
#include "import/folder/shard.h"

#include "core/atomic_file.h"
#include "core/parse_number.h"
#include "import/folder/raw_folder.h"
#include "import/folder/shard_codec.h"
#include "import/folder/shard_plan.h"

#include <fstream>
#include <map>

namespace stallscope::folder {

namespace fs = std::filesystem;

namespace {

// What a shard must be read with: its folder, checked to be a raw folder (a bundle has nothing to shard).
Result<std::string> rawFolder(const std::string& dir)
{
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        return LoadIssue { dir, 0, -1, "not a folder: a shard is of a folder of raw files" };
    }
    if (!isRawFolder(dir)) {
        return LoadIssue { dir, 0, -1, "a bundle (it holds manifest.json): only a folder of raw files is sharded" };
    }
    return absoluteFolder(dir).string();
}

std::string shardName(std::uint32_t index, std::uint32_t count)
{
    return "shard " + std::to_string(index) + "/" + std::to_string(count);
}

Result<DecodedShard> readShard(const std::string& file)
{
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        return LoadIssue { file, 0, -1, "cannot read the shard: " + errnoText() };
    }
    std::error_code ec;
    std::string bytes(fs::file_size(file, ec), '\0'); // one read: a shard of 2,048 ranks is ~150 MB
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    bytes.resize(static_cast<std::size_t>(in.gcount()));
    if (ec || in.bad()) {
        return LoadIssue { file, 0, -1, "cannot read the shard: " + errnoText() };
    }
    return decodeShard(file, bytes);
}

// Each shard read and placed by its index; one given twice, or of another N than the first, is refused.
Result<std::vector<DecodedShard>> readAllShards(
    const std::vector<std::string>& files, std::vector<std::string>& fileOf, Progress& progress)
{
    std::vector<DecodedShard> byIndex;
    for (std::size_t k = 0; k < files.size(); ++k) {
        progress.report("Reading shards", k, files.size());
        auto s = readShard(files[k]);
        if (!s) {
            return s.error();
        }
        const auto& h = s->header;
        if (k == 0) {
            byIndex.resize(h.count);
            fileOf.assign(h.count, {});
        }
        if (h.count != byIndex.size()) {
            return LoadIssue { files[k], 0, -1,
                "is " + shardName(h.index, h.count) + " but " + files.front() + " is one of "
                    + std::to_string(byIndex.size()) + ": the shards of one convert share N" };
        }
        if (h.index >= h.count) {
            return LoadIssue { files[k], 0, -1,
                "damaged shard: it says it is shard " + std::to_string(h.index) + " of " + std::to_string(h.count) };
        }
        if (!fileOf[h.index].empty()) {
            return LoadIssue { files[k], 0, -1,
                "is " + shardName(h.index, h.count) + ", and so is " + fileOf[h.index] + ": give each shard once" };
        }
        fileOf[h.index] = files[k];
        byIndex[h.index] = std::move(s.value());
    }
    return byIndex;
}

// All N present, all of one folder as one listing saw it; "" or why not.
std::optional<LoadIssue> checkOneSet(const std::vector<DecodedShard>& shards, const std::vector<std::string>& fileOf)
{
    std::size_t ref = 0; // the first shard given: the others are compared with it
    while (fileOf[ref].empty()) {
        ++ref;
    }
    const auto& first = shards[ref].header;
    const auto& firstFile = fileOf[ref];
    for (std::size_t i = 0; i < shards.size(); ++i) {
        const auto& h = shards[i].header;
        if (fileOf[i].empty()) {
            return LoadIssue { firstFile, 0, -1,
                shardName(static_cast<std::uint32_t>(i), first.count) + " of " + first.dir
                    + " is missing: expected the file `stallscope convert " + first.dir + " --shard "
                    + std::to_string(i) + "/" + std::to_string(first.count) + "` wrote, among the shards given" };
        }
        if (h.dir != first.dir) {
            return LoadIssue { fileOf[i], 0, -1,
                "is a shard of " + h.dir + ", but " + firstFile + " is of " + first.dir
                    + ": the shards of one merge are of one raw folder" };
        }
        if (h.fingerprint != first.fingerprint || h.folderFiles != first.folderFiles) {
            return LoadIssue { fileOf[i], 0, -1,
                "is a shard of " + h.dir + " as it was at another time than " + firstFile
                    + " (the folder's files differ): write every shard of the folder again" };
        }
    }
    return std::nullopt;
}

// Why the folder as it is now is not the folder the shards were written of: a file of theirs that changed, by name,
// else what the listing says.
LoadIssue folderChanged(const FolderPlan& now, const std::vector<DecodedShard>& shards)
{
    const auto& h = shards.front().header;
    for (const auto& s : shards) {
        for (const auto& e : s.entries) {
            const auto file = fs::path(h.dir) / e.path;
            std::error_code ec;
            const auto size = fs::file_size(file, ec);
            if (ec || size != e.size || modifiedNs(file) != e.modified) {
                return { file.string(), 0, -1,
                    std::string(ec ? "is gone" : "changed") + " since " + shardName(s.header.index, h.count)
                        + " was written: write the shards again" };
            }
        }
    }
    return { h.dir, 0, -1,
        "is not as its shards found it (" + std::to_string(h.folderFiles) + " files then, "
            + std::to_string(now.listing.files.size())
            + " now, or files changed): write the shards again from the folder as it is" };
}

// The shards' files by their path as the folder's listing names them, each checked to be the one its shard parses.
Result<PreparsedFiles> preparsedOf(
    std::vector<DecodedShard>& shards, const std::vector<std::string>& fileOf, const FolderPlan& plan)
{
    std::map<std::string, std::int64_t> shardOf;
    for (std::size_t i = 0; i < plan.listing.files.size(); ++i) {
        shardOf.emplace(plan.listing.files[i].string(), plan.shardOf[i]);
    }
    PreparsedFiles out;
    for (std::size_t k = 0; k < shards.size(); ++k) {
        for (auto& e : shards[k].entries) {
            auto path = (fs::path(plan.dir) / e.path).string();
            const auto it = shardOf.find(path);
            if (it == shardOf.end() || it->second != static_cast<std::int64_t>(k)) {
                return LoadIssue { fileOf[k], 0, -1,
                    "damaged shard: it holds " + e.path + ", which is not among the files it parses" };
            }
            out.files.emplace(std::move(path), std::move(e.file));
        }
        shards[k].entries.clear();
    }
    return out;
}

} // namespace

Result<MergedShards> loadFromShards(
    const std::vector<std::string>& files, Progress& progress, const ScratchPolicy& scratch)
{
    if (files.empty()) {
        return LoadIssue { "", 0, -1, "no shard given" };
    }
    std::vector<std::string> fileOf;
    auto shards = readAllShards(files, fileOf, progress);
    if (!shards) {
        return shards.error();
    }
    if (auto bad = checkOneSet(shards.value(), fileOf)) {
        return *bad;
    }
    const auto& head = shards->front().header;
    std::vector<LoadIssue> ignored; // the reading below lists the folder again and says them
    auto plan = planShards(head.dir, head.count, ignored);
    if (!plan) {
        return plan.error();
    }
    if (plan->fingerprint != head.fingerprint || plan->listing.files.size() != head.folderFiles) {
        return folderChanged(plan.value(), shards.value());
    }
    auto preparsed = preparsedOf(shards.value(), fileOf, plan.value());
    if (!preparsed) {
        return preparsed.error();
    }
    MergedShards m;
    m.dir = head.dir;
    m.shards = head.count;
    m.fromShards = preparsed->files.size();
    auto job = loadRawFolder(m.dir, progress, {}, scratch, &preparsed.value());
    if (!job) {
        return job.error();
    }
    m.job = std::move(job.value());
    return m;
}

std::optional<ShardSpec> parseShardSpec(std::string_view text)
{
    const auto slash = text.find('/');
    if (slash == std::string_view::npos) {
        return std::nullopt;
    }
    const auto k = parseNumber<std::uint32_t>(text.substr(0, slash));
    const auto n = parseNumber<std::uint32_t>(text.substr(slash + 1));
    if (!k || !n || *n == 0 || *n > kMaxShards || *k >= *n) {
        return std::nullopt;
    }
    return ShardSpec { *k, *n };
}

Result<ShardWritten> writeShard(
    const std::string& dir, ShardSpec spec, const std::string& out, Progress& progress, const ScratchPolicy& scratch)
{
    auto abs = rawFolder(dir);
    if (!abs) {
        return abs.error();
    }
    std::vector<LoadIssue> ignored; // the merge reads the folder and says them
    auto plan = planShards(abs.value(), spec.count, ignored);
    if (!plan) {
        return plan.error();
    }
    ShardWritten w;
    w.dir = plan->dir;
    w.folderFiles = plan->listing.files.size();
    std::vector<fs::path> mine;
    for (std::size_t i = 0; i < plan->listing.files.size(); ++i) {
        if (plan->shardOf[i] == spec.index) {
            ++w.shardFiles;
            if (mayHoldRecords(plan->listing.files[i])) {
                mine.push_back(plan->listing.files[i]);
            }
        }
    }
    auto parsed = parseAlone(mine, plan->listing.files.size(), scratch, progress);
    if (!parsed) {
        return LoadIssue { dir, 0, -1, "cancelled" };
    }
    std::vector<ShardEntry> entries;
    for (std::size_t i = 0; i < mine.size(); ++i) {
        std::error_code ec;
        const auto size = fs::file_size(mine[i], ec);
        w.bytesRead += ec ? 0 : size;
        auto& p = (*parsed)[i];
        if (p && keptInShard(*p->format)) {
            entries.push_back({ relativeName(plan.value(), mine[i]), size, modifiedNs(mine[i]), std::move(*p) });
        }
    }
    w.kept = entries.size();
    const auto bytes = encodeShard({ spec.index, spec.count, plan->dir, plan->fingerprint, w.folderFiles }, entries);
    w.shardBytes = bytes.size();
    std::error_code ec;
    if (const auto parent = fs::absolute(out, ec).parent_path(); !ec) {
        fs::create_directories(parent, ec); // the array's tasks write into one folder: the first makes it
    }
    if (auto e = writeFileAtomic(out, bytes); !e.empty()) {
        return LoadIssue { out, 0, -1, "the shard was not written: " + e };
    }
    return w;
}

} // namespace stallscope::folder
