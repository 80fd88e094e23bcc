/* libFuzzer target: the external-data loader, from a real directory.
 *
 * The input is split in two: its first two bytes (little-endian) give the model's length L;
 * bytes [2, 2+L) are the model, the rest is the external data file. Both are written into a
 * fresh temporary directory as model.onnx and w.bin, beside a symbolic link to w.bin (link.bin),
 * a subdirectory (sub/w.bin, a copy) and an empty file (empty.bin), so that locations naming
 * each kind of entry are reached. The model is then read from its file with external data
 * loaded (the model's directory as base). When it reads:
 *   - written to memory (tensors inline), read back, written again: same bytes;
 *   - written as a file with external data (threshold from the input), read back with external
 *     data loaded, and its inline write must equal the first one: the tensor bytes survive a
 *     trip through an external file.
 * The directory and everything in it are removed afterwards. */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_common.h"

static int put_file(const char *path, const uint8_t *p, size_t n) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return -1;
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w <= 0) {
      close(fd);
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return close(fd);
}

/* Removes dir and what is in it (one level of subdirectories is all this target makes, but
 * the writer may leave other files: remove whatever is there). */
static void remove_tree(const char *dir) {
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d))) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      struct stat st;
      if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
        remove_tree(path);
      else
        unlink(path);
    }
    closedir(d);
  }
  rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 3 || size > (1u << 20)) return 0;
  size_t len = (size_t)data[0] | (size_t)data[1] << 8;
  const uint8_t *model = data + 2, *ext;
  size_t rest = size - 2;
  if (len > rest) len = rest;
  ext = model + len;
  size_t ext_n = rest - len;
  uint64_t threshold = ext_n ? ext[ext_n - 1] : 0; /* 0..255: most tensors go external */

  const char *tmp = getenv("TMPDIR");
  char dir[4096], path[4096 + 32];
  snprintf(dir, sizeof dir, "%s/olg-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) FZ_DIE("mkdtemp %s", dir);
  snprintf(path, sizeof path, "%s/w.bin", dir);
  if (put_file(path, ext, ext_n)) FZ_DIE("writing %s", path);
  snprintf(path, sizeof path, "%s/link.bin", dir);
  if (symlink("w.bin", path)) FZ_DIE("symlink %s", path);
  snprintf(path, sizeof path, "%s/empty.bin", dir);
  if (put_file(path, NULL, 0)) FZ_DIE("writing %s", path);
  snprintf(path, sizeof path, "%s/sub", dir);
  if (mkdir(path, 0700)) FZ_DIE("mkdir %s", path);
  snprintf(path, sizeof path, "%s/sub/w.bin", dir);
  if (put_file(path, ext, ext_n)) FZ_DIE("writing %s", path);
  snprintf(path, sizeof path, "%s/model.onnx", dir);
  if (put_file(path, model, len)) FZ_DIE("writing %s", path);

  olg_read_options ro = OLG_READ_OPTIONS_INIT; /* load_external_data = 1, base: model's dir */
  olg_model *m;
  olg_status s = olg_model_read_file(&m, path, &ro);
  fz_status_known(s, "olg_model_read_file");
  if (s == OLG_OK) {
    fz_buf a = {0}, b = {0};
    s = olg_model_write_callback(m, fz_keep, &a, NULL);
    fz_status_known(s, "olg_model_write_callback");
    if (s == OLG_OK) {
      fz_write_read_back(m, "model with external data loaded");
      olg_write_options wo = OLG_WRITE_OPTIONS_INIT;
      wo.external_data = "out.bin";
      wo.external_data_threshold = threshold;
      snprintf(path, sizeof path, "%s/out.onnx", dir);
      s = olg_model_write_file(m, path, &wo);
      fz_status_known(s, "olg_model_write_file with external data");
      if (s != OLG_OK) FZ_DIE("writing with external data what was written inline");
      olg_model *m2;
      if (olg_model_read_file(&m2, path, &ro) != OLG_OK)
        FZ_DIE("reading back the model written with external data");
      if (olg_model_write_callback(m2, fz_keep, &b, NULL) != OLG_OK)
        FZ_DIE("writing inline the model read back");
      if (a.n != b.n || memcmp(a.p, b.p, a.n) != 0)
        FZ_DIE("the trip through external data changed the model (%zu vs %zu bytes)", a.n, b.n);
      olg_model_free(m2);
    }
    fz_buf_free(&a);
    fz_buf_free(&b);
    olg_model_free(m);
  }
  remove_tree(dir);
  return 0;
}
