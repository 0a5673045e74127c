#include "engine/segment_codec.h"

namespace ttd {

namespace {
constexpr uint8_t kWhole = 0, kDelta = 1;
constexpr uint64_t kSegmentPages = uint64_t(1) << kSegmentShift;
}  // namespace

void encode_segment(const KeyframePage* pages, size_t n, uint64_t key, ByteWriter& out) {
  const uint64_t base = key << kSegmentShift;
  out.u8(kWhole);
  out.var(n);
  uint64_t prev = 0, prev_id = 0;
  for (size_t i = 0; i < n; ++i) {
    uint64_t rel = pages[i].no - base;
    out.var(rel - prev);
    prev = rel;
    // Index version 11: the id as its difference from the previous page's
    // (neighbouring pages were mostly stored in the same chunks, so their
    // ids are close: two bytes where an id of a large trace takes four).
    out.svar(int64_t(pages[i].id - prev_id));
    prev_id = pages[i].id;
  }
}

bool encode_segment_delta(const KeyframePage* base, size_t nb, const KeyframePage* pages, size_t n, uint64_t key,
                          uint64_t distance, ByteWriter& out) {
  // Counted first: the count precedes the changes.
  size_t changes = 0;
  for (size_t i = 0, j = 0; i < nb || j < n;) {
    if (j == n || (i < nb && base[i].no < pages[j].no)) {
      ++changes, ++i;
    } else if (i == nb || pages[j].no < base[i].no) {
      ++changes, ++j;
    } else {
      changes += base[i].id != pages[j].id;
      ++i, ++j;
    }
  }
  if (changes == 0) return false;
  const uint64_t first = key << kSegmentShift;
  out.u8(kDelta);
  out.var(distance);
  out.var(changes);
  uint64_t prev = 0, prev_id = 0;
  auto change = [&](uint64_t no, bool removed, uint64_t id) {
    const uint64_t rel = no - first;
    out.var(((rel - prev) << 1) | uint64_t(removed));
    prev = rel;
    if (removed) return;
    out.svar(int64_t(id - prev_id));
    prev_id = id;
  };
  for (size_t i = 0, j = 0; i < nb || j < n;) {
    if (j == n || (i < nb && base[i].no < pages[j].no)) {
      change(base[i++].no, true, 0);
    } else if (i == nb || pages[j].no < base[i].no) {
      change(pages[j].no, false, pages[j].id);
      ++j;
    } else {
      if (base[i].id != pages[j].id) change(pages[j].no, false, pages[j].id);
      ++i, ++j;
    }
  }
  return true;
}

const char* parse_segment_head(const uint8_t* data, size_t size, uint64_t own_id, SegmentHead& out) {
  ByteReader r(data, size);
  const uint8_t kind = r.u8();
  if (!r.ok()) return "empty segment";
  if (kind == kWhole) {
    out = SegmentHead{false, 0, 1};
    return nullptr;
  }
  if (kind != kDelta) return "unknown segment kind";
  const uint64_t distance = r.var();
  if (!r.ok()) return "segment delta cut short";
  if (distance == 0 || distance > own_id) return "segment delta's base is not an older segment";
  out = SegmentHead{true, own_id - distance, size_t(r.pos() - data)};
  return nullptr;
}

const char* decode_segment_whole(const uint8_t* data, size_t size, const SegmentHead& head, SegmentPages& out) {
  ByteReader r(data + head.body_at, size - head.body_at);
  uint64_t n = r.var();
  if (n > kSegmentPages || !r.ok()) return "segment page count out of range";
  out.resize(n);
  uint64_t rel = 0, id = 0;
  for (size_t i = 0; i < n; ++i) {
    uint64_t d = r.var();
    if (i > 0 && d == 0) return "segment page numbers not ascending";
    rel += d;
    if (rel >= kSegmentPages) return "segment page number outside the segment";
    id += uint64_t(r.svar());
    out[i] = KeyframePage{rel, id};
  }
  if (!r.ok()) return "segment cut short";
  return r.at_end() ? nullptr : "bytes after the segment's pages";
}

bool decode_segment(const uint8_t* data, size_t size, SegmentPages& out) {
  SegmentHead head;
  return !parse_segment_head(data, size, 0, head) && !head.delta && !decode_segment_whole(data, size, head, out);
}

namespace {
// Walks a delta's changes, calling on(rel, removed, id) for each; nullptr
// or what is wrong with their encoding.
template <class On>
const char* walk_delta(const uint8_t* data, size_t size, const SegmentHead& head, On on) {
  ByteReader r(data + head.body_at, size - head.body_at);
  const uint64_t m = r.var();
  if (m == 0 || m > kSegmentPages || !r.ok()) return "segment delta change count out of range";
  uint64_t rel = 0, id = 0;
  for (uint64_t i = 0; i < m; ++i) {
    const uint64_t code = r.var();
    const uint64_t gap = code >> 1;
    if (i > 0 && gap == 0) return "segment delta page numbers not ascending";
    if (gap >= kSegmentPages || rel + gap >= kSegmentPages) return "segment delta page number outside the segment";
    rel += gap;
    const bool removed = code & 1;
    if (!removed) id += uint64_t(r.svar());
    if (!r.ok()) return "segment delta cut short";
    if (const char* e = on(rel, removed, id)) return e;
  }
  return r.at_end() ? nullptr : "bytes after the segment delta's changes";
}
}  // namespace

const char* apply_segment_delta(const uint8_t* data, size_t size, const SegmentHead& head, const SegmentPages& base,
                                SegmentPages& out) {
  out.clear();
  size_t i = 0;
  const char* e = walk_delta(data, size, head, [&](uint64_t rel, bool removed, uint64_t id) -> const char* {
    while (i < base.size() && base[i].no < rel) out.push_back(base[i++]);
    const bool had = i < base.size() && base[i].no == rel;
    if (removed && !had) return "segment delta removes a page its base does not have";
    i += had;
    if (!removed) out.push_back(KeyframePage{rel, id});
    return nullptr;
  });
  if (e) return e;
  out.insert(out.end(), base.begin() + long(i), base.end());
  return nullptr;
}

const char* check_segment_blob(const uint8_t* data, size_t size, uint64_t own_id) {
  SegmentHead head;
  if (const char* e = parse_segment_head(data, size, own_id, head)) return e;
  if (!head.delta) {
    thread_local SegmentPages pages;
    return decode_segment_whole(data, size, head, pages);
  }
  return walk_delta(data, size, head, [](uint64_t, bool, uint64_t) -> const char* { return nullptr; });
}

}  // namespace ttd
