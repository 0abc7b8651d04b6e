// The plan as a picture: a memory timeline in SVG. Node positions run
// across, arena bytes up; one rectangle per buffer owner from its def to its
// last use at its arena offset, coloured by its slot in the seed's slot plan;
// the live-set curve over them; the peak position marked; every rectangle
// names its value on hover (<title>).
#pragma once

#include <onnx_runtime_memory/onnx_runtime_memory.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace svg {

namespace orm = onnx_runtime_memory;

inline std::string escape(std::string_view s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

struct Timeline {
    std::string title;
    const orm::Liveness* live = nullptr;
    const orm::ActivationPlan* slots = nullptr;
    const orm::ArenaPlan* arena = nullptr;
    std::vector<std::size_t> sizes;           // by value id
    std::vector<std::string> names;           // by value id
    std::vector<std::size_t> live_bytes;      // by position
    std::size_t peak_position = 0;
};

// A distinct, readable colour per slot (golden-angle hues).
inline std::string slot_colour(std::uint32_t slot) {
    return fmt::format("hsl({},65%,{}%)", (slot * 137) % 360, 55 + 10 * (slot % 2));
}

inline std::string render(const Timeline& t) {
    const double width = 1200, height = 600, left = 90, right = 20, top = 50, bottom = 50;
    const double plot_w = width - left - right, plot_h = height - top - bottom;
    const std::size_t positions = std::size_t{t.live->last_position} + 1;
    const std::size_t max_bytes = std::max<std::size_t>(
        {t.arena->arena_bytes, *std::max_element(t.live_bytes.begin(), t.live_bytes.end()), 1});
    const auto x = [&](double p) { return left + plot_w * p / static_cast<double>(positions); };
    const auto y = [&](double bytes) { return top + plot_h - plot_h * bytes / static_cast<double>(max_bytes); };

    std::string out = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
        "font-family=\"sans-serif\" font-size=\"12\">\n"
        "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        "<text x=\"{}\" y=\"24\" font-size=\"16\" font-weight=\"bold\">{}</text>\n",
        width, height, width, height, left, escape(t.title));
    // Axes with a few byte ticks.
    out += fmt::format("<g stroke=\"#444\"><line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>"
                       "<line x1=\"{0}\" y1=\"{2}\" x2=\"{3}\" y2=\"{2}\"/></g>\n",
                       left, top, top + plot_h, left + plot_w);
    for (int k = 0; k <= 4; ++k) {
        const double bytes = static_cast<double>(max_bytes) * k / 4;
        out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{:.1f} MiB</text>\n", left - 6, y(bytes) + 4,
                           bytes / (1024.0 * 1024.0));
    }
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">node position (0 .. {})</text>\n",
                       left + plot_w / 2, height - 15, positions - 1);
    // One rectangle per owner.
    out += "<g stroke=\"#222\" stroke-width=\"0.3\">\n";
    for (orm::ValueId v : t.live->owners) {
        const auto off = t.arena->offset_of(v);
        const auto slot = t.slots->slot_of(v);
        if (!off || !slot || t.sizes[v] == 0) continue;
        const auto& iv = t.live->intervals[v];
        const double x0 = x(iv.def), x1 = x(std::size_t{iv.use_end} + 1);
        const double y0 = y(static_cast<double>(*off + t.sizes[v])), y1 = y(static_cast<double>(*off));
        out += fmt::format(
            "<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\"><title>{} ({} bytes, "
            "nodes {}..{}, slot {}, offset {})</title></rect>\n",
            x0, y0, std::max(x1 - x0, 0.5), std::max(y1 - y0, 0.5), slot_colour(slot->value), escape(t.names[v]),
            t.sizes[v], iv.def, iv.use_end, slot->value, *off);
    }
    out += "</g>\n";
    // The live-set curve and the peak.
    std::string points;
    for (std::size_t p = 0; p < positions; ++p)
        points += fmt::format("{:.2f},{:.2f} {:.2f},{:.2f} ", x(p), y(t.live_bytes[p]), x(p + 1), y(t.live_bytes[p]));
    out += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"black\" stroke-width=\"1.5\"/>\n", points);
    const double px = x(t.peak_position + 0.5);
    out += fmt::format("<line x1=\"{0:.2f}\" y1=\"{1}\" x2=\"{0:.2f}\" y2=\"{2}\" stroke=\"red\" stroke-dasharray=\"4 3\"/>"
                       "<text x=\"{3:.2f}\" y=\"{4}\" fill=\"red\">peak live set: {5:.1f} MiB at node {6}</text>\n",
                       px, top, top + plot_h, std::min(px + 4, width - 260), top - 6,
                       static_cast<double>(t.live_bytes[t.peak_position]) / (1024.0 * 1024.0), t.peak_position);
    out += "</svg>\n";
    return out;
}

// A spilled plan: one panel per space, fast above slow, positions across
// and offsets up in each; a rectangle per segment, coloured by its record,
// and each copy a vertical line across both panels where it runs (out:
// after its node, orange; in: before its node, blue).
struct SpillPicture {
    std::string title, fast_name, slow_name;
    std::size_t positions = 0, fast_capacity = 0;
    const orm::SpillPlan* plan = nullptr;
    std::vector<std::size_t> bytes;   // by record
    std::vector<std::string> names;   // by record
};

inline std::string render_spill(const SpillPicture& t) {
    const double width = 1200, height = 800, left = 90, right = 20, top = 50, gap = 50, bottom = 50;
    const double plot_w = width - left - right, panel_h = (height - top - gap - bottom) / 2;
    const auto& plan = *t.plan;
    const std::size_t positions = std::max<std::size_t>(t.positions, 1);
    const std::size_t tops[2] = {std::max<std::size_t>({plan.fast_bytes, t.fast_capacity == orm::unbounded ? 0 : t.fast_capacity, 1}),
                                 std::max<std::size_t>(plan.slow_bytes, 1)};
    const auto x = [&](double p) { return left + plot_w * p / static_cast<double>(positions); };
    const auto y = [&](int space, double bytes) {
        const double base = top + panel_h * (space + 1) + gap * space;
        return base - panel_h * bytes / static_cast<double>(tops[space]);
    };
    std::string out = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
        "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        "<text x=\"{}\" y=\"24\" font-size=\"16\" font-weight=\"bold\">{}</text>\n",
        width, height, width, height, left, escape(t.title));
    for (int space = 0; space < 2; ++space) {
        const std::string& name = space == 0 ? t.fast_name : t.slow_name;
        out += fmt::format("<g id=\"{}\"><text x=\"{}\" y=\"{:.1f}\" font-weight=\"bold\">{} ({:.2f} MiB)</text>"
                           "<g stroke=\"#444\"><line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\"/></g>\n",
                           escape(name), left, y(space, static_cast<double>(tops[space])) - 6, escape(name),
                           static_cast<double>(tops[space]) / (1024.0 * 1024.0), left, y(space, 0), left + plot_w,
                           y(space, 0));
        for (std::size_t r = 0; r + 1 < plan.segment_begin.size(); ++r)
            for (std::size_t k = plan.segment_begin[r]; k < plan.segment_begin[r + 1]; ++k) {
                const auto& seg = plan.segments[k];
                if (static_cast<int>(seg.space) != space || t.bytes[r] == 0 || seg.first > seg.last) continue;
                const double x0 = x(seg.first), x1 = x(static_cast<double>(seg.last) + 1);
                const double y0 = y(space, static_cast<double>(seg.offset + t.bytes[r])), y1 = y(space, static_cast<double>(seg.offset));
                out += fmt::format("<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\" "
                                   "stroke=\"#222\" stroke-width=\"0.3\"><title>{} ({} bytes, nodes {}..{}, offset {})</title></rect>\n",
                                   x0, y0, std::max(x1 - x0, 0.5), std::max(y1 - y0, 0.5),
                                   slot_colour(static_cast<std::uint32_t>(r)), escape(t.names[r]), t.bytes[r], seg.first,
                                   seg.last, seg.offset);
            }
        out += "</g>\n";
    }
    for (const auto& c : plan.transfers) {
        const bool out_copy = c.direction == orm::Transfer::Direction::out;
        const double at = x(out_copy ? static_cast<double>(c.position) + 1 : static_cast<double>(c.position));
        out += fmt::format("<line x1=\"{0:.2f}\" y1=\"{1}\" x2=\"{0:.2f}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"1.2\">"
                           "<title>{4} {5}: {6} bytes {7} node {8}</title></line>\n",
                           at, top, top + 2 * panel_h + gap, out_copy ? "#e67e22" : "#2e86de", out_copy ? "out" : "in",
                           escape(t.names[c.buffer]), c.bytes, out_copy ? "after" : "before", c.position);
    }
    out += "</svg>\n";
    return out;
}

}  // namespace svg
