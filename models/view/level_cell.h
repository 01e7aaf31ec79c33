// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>

namespace stallscope {

// A stored cell of the heatmap's pyramid: 4 bytes (the stall share is an overlay applied per column at
// rasterization). Shares are 0..255 of the cell's time.
struct LevelCell
{
    std::uint8_t inside = 0;
    std::uint8_t late = 0; // lateness levels only
    std::uint8_t failed = 0;
    std::uint8_t present = 0;
};
static_assert(sizeof(LevelCell) == 4);

} // namespace stallscope
