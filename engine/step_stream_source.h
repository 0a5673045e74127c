// The rest of a step stream of which a StepDecoder was given a prefix (a
// seek's stream inflated block by block, engine/blob_prefix.h). The bytes
// grow in place: what the decoder has read stays where it is.
#pragma once
#include <cstddef>

namespace ttd {

class StepStreamSource {
 public:
  // Makes at least `bytes` bytes from the stream's start available (all
  // of them when the stream is shorter); false when they cannot be had
  // (the stream is corrupt).
  virtual bool make_available(size_t bytes) = 0;
  virtual size_t available() const = 0;
  virtual bool complete() const = 0;

 protected:
  ~StepStreamSource() = default;
};

}  // namespace ttd
