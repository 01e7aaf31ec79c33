// SPDX-License-Identifier: MIT
#pragma once

// Files another tool packed, told by their first bytes: archives (tar, zip, 7-Zip, RAR) and compressors other than
// gzip (xz, zstd, bzip2, lz4). Logs and dumps travel off a cluster as `tar czf logs.tgz` far more often than as a
// folder; a tar of logs reads as text with headers between the files, so it was read as one rank log made of every
// file in it — ranks blended, the dumps inside lost, its zero padding taken for a host that died while writing.
// Such a file is named for what it is, with the command that unpacks it (docs/raw-folders.md, "Files other tools
// packed"). gzip itself is inflated where the bytes are read (file_bytes.h); a gzip'd tar is judged by what it inflates
// to. Magic numbers: POSIX.1-1988 ustar ("ustar" at offset 257, GNU's "ustar  " too, and the header checksum), PKWARE
// APPNOTE 4.3.7 (local file header 50 4B 03 04, empty archive 50 4B 05 06), 7-Zip's 7z format (37 7A BC AF 27 1C), RAR
// 4/5
// ("Rar!" 1A 07), xz file format 1.0.4 (FD 37 7A 58 5A 00), RFC 8878 zstd frames (28 B5 2F FD), bzip2's stream
// header ("BZh" '1'..'9' then a block's 31 41 59 26 53 59 or the end-of-stream 17 72 45 38 50 90), lz4 frame
// format (04 22 4D 18); RFC 1952 gzip (1F 8B 08) met in bytes gzip was already taken off.

#include <optional>
#include <string>
#include <string_view>

namespace stallscope {

enum class Packing {
    Tar,
    Zip,
    TorchSave, // a zip whose first member is `<name>/data.pkl` or `<name>/version`: torch.save's checkpoints
    SevenZip,
    Rar,
    Xz,
    Zstd,
    Bzip2,
    Lz4,
    GzipTwice, // gzip bytes after gzip was inflated: a .gz of a .gz
};

// What packed the bytes that begin with `head` (a tar needs its first 512 bytes), or nothing. Pure; reads at most
// the first 512 bytes of `head`.
std::optional<Packing> packingOf(std::string_view head);

// Why the file is skipped and the command that unpacks it, without the file's name (the warning carries it, and
// files of one packing group into one line): "a tar archive: … extract it (`tar -xf`) and open the folder …".
std::string packedMessage(Packing p);

} // namespace stallscope
