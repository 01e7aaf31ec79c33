// SPDX-License-Identifier: MIT
#pragma once

// Writes Python pickles, protocol 2, in the opcode subset torch::jit::Pickler uses for Flight Recorder dumps
// (docs/formats.md §1a): EMPTY_DICT/LIST + MARK + SETITEMS/APPENDS, BINUNICODE with memoized repeats, BININT1/2,
// BININT, LONG1, BINFLOAT, NEWTRUE/NEWFALSE, NONE, TUPLE2. Used by the simulator to write raw incident folders.
// Streaming: the caller opens containers, writes keys and values in order, and closes them.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

namespace stallscope {

class PickleWriter
{
public:
    PickleWriter();
    void beginDict();
    void endDict(); // SETITEMS for the items written since beginDict
    void beginList();
    void endList();
    void tuple2(std::string_view a, std::string_view b);
    void str(std::string_view s); // memoized: a repeated string is a BINGET
    void integer(std::int64_t v);
    void real(double v);
    void boolean(bool v);
    void none();
    // Ends the pickle (STOP) and returns the bytes.
    std::string finish();

private:
    void put();
    std::string m_out;
    std::unordered_map<std::string, std::uint32_t> m_memoStrings;
    std::uint32_t m_memo = 0;
};

} // namespace stallscope
