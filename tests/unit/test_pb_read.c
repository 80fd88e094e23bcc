/* The reader's inline helpers (lib/serialize/pb_read.h) against plain loops. */
#include <string.h>

#include "../harness.h"
#include "serialize/pb_read.h"

/* olg__pbr_has_nul (words of up to 16 bytes, memchr beyond) says what a byte loop says: every
 * length to 24, a 0 at each place or none, among bytes that trip a careless word test (0x01 and
 * 0x80 neighbours, 0xff, 0x7f). */
TEST(pb_read_has_nul_matches_a_byte_loop) {
  static const uint8_t fill[] = {0x01, 0x80, 0xff, 0x7f, 0x81, 'a'};
  uint8_t buf[40];
  for (size_t f = 0; f < sizeof fill; f++)
    for (size_t n = 0; n <= 24; n++)
      for (size_t at = 0; at <= n; at++) { /* at == n: no 0 among the n */
        for (size_t off = 0; off < 8; off++) { /* any alignment; a 0 just past the end */
          memset(buf, fill[f], sizeof buf);
          buf[off + n] = 0;
          if (at < n) buf[off + at] = 0;
          bool want = false;
          for (size_t i = 0; i < n; i++) want |= !buf[off + i];
          CHECK_EQ(olg__pbr_has_nul(buf + off, n), want);
        }
      }
}
