// SPDX-License-Identifier: MIT
#include "import/common/packed.h"

#include <cstdint>

namespace stallscope {

namespace {

bool startsWith(std::string_view s, std::string_view prefix)
{
    return s.substr(0, prefix.size()) == prefix;
}

// A zip's first local file header names its first member: 2-byte little-endian length at offset 26, name at 30.
std::string_view firstZipMember(std::string_view head)
{
    if (head.size() < 30) {
        return {};
    }
    const auto len = static_cast<std::size_t>(static_cast<unsigned char>(head[26]))
        | static_cast<std::size_t>(static_cast<unsigned char>(head[27])) << 8;
    return head.substr(30, len); // cut to what the head holds
}

bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// torch.save (PyTorch ≥ 1.6) writes a zip whose members are `<archive name>/data.pkl`, `.../version`,
// `.../data/0`, ...; data.pkl first (torch/csrc/jit/serialization/pickler and caffe2's PyTorchStreamWriter).
bool isTorchSave(std::string_view head)
{
    const auto name = firstZipMember(head);
    return name.find('/') != std::string_view::npos && (endsWith(name, "/data.pkl") || endsWith(name, "/version"));
}

bool isBzip2(std::string_view head)
{
    using namespace std::string_view_literals;
    if (head.size() < 10 || !startsWith(head, "BZh") || head[3] < '1' || head[3] > '9') {
        return false;
    }
    const auto block = head.substr(4, 6);
    return block == "\x31\x41\x59\x26\x53\x59"sv || block == "\x17\x72\x45\x38\x50\x90"sv;
}

// The header's checksum (octal at 148..155) against the sum of its 512 bytes, the checksum field counted as spaces:
// with the magic, a log whose byte 257 begins "ustar" by chance is not taken for an archive. Old tars summed signed
// chars; both sums are accepted (as GNU tar does).
bool tarChecksumHolds(std::string_view header)
{
    std::uint32_t stored = 0;
    std::size_t k = 148;
    while (k < 156 && header[k] == ' ') {
        ++k;
    }
    const auto digitsFrom = k;
    for (; k < 156 && header[k] >= '0' && header[k] <= '7'; ++k) {
        stored = stored * 8 + static_cast<std::uint32_t>(header[k] - '0'); // at most 8 digits: < 2^24
    }
    if (k == digitsFrom || (k < 156 && header[k] != '\0' && header[k] != ' ')) {
        return false;
    }
    std::uint32_t sum = 0;
    std::int32_t signedSum = 0;
    for (std::size_t i = 0; i < 512; ++i) {
        const char c = i >= 148 && i < 156 ? ' ' : header[i];
        sum += static_cast<unsigned char>(c);
        signedSum += static_cast<signed char>(c);
    }
    return stored == sum || static_cast<std::int32_t>(stored) == signedSum;
}

bool isTar(std::string_view head)
{
    // "ustar\0" + "00" (POSIX) or "ustar  \0" (GNU): the first five bytes are the same.
    return head.size() >= 512 && head.substr(257, 5) == "ustar" && tarChecksumHolds(head.substr(0, 512));
}

} // namespace

std::optional<Packing> packingOf(std::string_view head)
{
    using namespace std::string_view_literals;
    head = head.substr(0, 512);
    if (isTar(head)) {
        return Packing::Tar;
    }
    if (startsWith(head, "PK\x03\x04"sv)) {
        return isTorchSave(head) ? Packing::TorchSave : Packing::Zip;
    }
    if (startsWith(head, "PK\x05\x06"sv)) {
        return Packing::Zip; // an empty archive: its end record alone
    }
    if (startsWith(head, "7z\xBC\xAF\x27\x1C"sv)) {
        return Packing::SevenZip;
    }
    if (startsWith(head, "Rar!\x1A\x07"sv)) {
        return Packing::Rar;
    }
    if (startsWith(head,
            "\xFD"
            "7zXZ\x00"sv)) {
        return Packing::Xz;
    }
    if (startsWith(head, "\x28\xB5\x2F\xFD"sv)) {
        return Packing::Zstd;
    }
    if (isBzip2(head)) {
        return Packing::Bzip2;
    }
    if (startsWith(head, "\x04\x22\x4D\x18"sv)) {
        return Packing::Lz4;
    }
    if (startsWith(head, "\x1F\x8B\x08"sv)) { // called on inflated bytes: gzip is inflated once, where read
        return Packing::GzipTwice;
    }
    return std::nullopt;
}

std::string packedMessage(Packing p)
{
    const auto archive = [](std::string_view what, std::string_view command) {
        return std::string(what) + ": Stallscope reads the files of a folder, not of an archive — extract it ("
            + std::string(command) + ") and open the folder it makes: skipped";
    };
    const auto compressed = [](std::string_view tool, std::string_view command) {
        return "compressed with " + std::string(tool) + ", which Stallscope does not read (it reads gzip): `"
            + std::string(command) + "` gives the file (`tar -xf` when it is an archive): skipped";
    };
    switch (p) {
    case Packing::Tar:
        return archive("a tar archive", "`tar -xf`, which also undoes gzip, xz and zstd");
    case Packing::Zip:
        return archive("a zip archive", "`unzip -d FOLDER`");
    case Packing::TorchSave:
        return "a file torch.save wrote (a checkpoint or saved tensors: a zip holding data.pkl), which holds "
               "nothing Stallscope reads: skipped";
    case Packing::SevenZip:
        return archive("a 7-Zip archive", "`7z x -oFOLDER`");
    case Packing::Rar:
        return archive("a RAR archive", "`unrar x`");
    case Packing::Xz:
        return compressed("xz", "xz -dk");
    case Packing::Zstd:
        return compressed("zstd", "zstd -d");
    case Packing::Bzip2:
        return compressed("bzip2", "bzip2 -dk");
    case Packing::Lz4:
        return compressed("lz4", "lz4 -d");
    case Packing::GzipTwice:
        return "compressed with gzip twice (a .gz of a .gz): Stallscope inflates gzip once — `gunzip -c` of it, "
               "saved, gives a .gz it reads: skipped";
    }
    return {};
}

} // namespace stallscope
