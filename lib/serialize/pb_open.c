/* onnxlegal — opening an external data file or directory beneath the model's directory, for
 * the reader (external tensors) and the default writer (the external data directory) alike: in
 * a file of its own so that a configuration without the reader (onnxlegal/config.h) keeps it. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pb.h"

/* Why a file that is not a regular one is refused. */
const char *olg__pbr_file_kind(mode_t m) {
  return S_ISFIFO(m) ? "is not a regular file (a FIFO)"
         : S_ISDIR(m) ? "is not a regular file (a directory)"
         : S_ISSOCK(m) ? "is not a regular file (a socket)"
         : S_ISCHR(m) || S_ISBLK(m) ? "is not a regular file (a device)"
         : "is not a regular file";
}

int olg__pb_open_beneath(const char *dir, const char *location, int flags, mode_t mode,
                         const char **why) {
  *why = NULL;
  if (!*location) { *why = "is empty"; errno = EINVAL; return -1; }
  if (location[0] == '/') { *why = "is an absolute path"; errno = EINVAL; return -1; }
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) { *why = "has no directory to resolve in"; return -1; }
  const char *c = location;
  for (;;) {
    const char *slash = strchr(c, '/');
    size_t len = slash ? (size_t)(slash - c) : strlen(c);
    char comp[NAME_MAX + 1];
    if (len == 0) { *why = "has an empty path component"; errno = EINVAL; break; }
    if (len > NAME_MAX) { *why = "has a path component that is too long"; errno = ENAMETOOLONG; break; }
    memcpy(comp, c, len);
    comp[len] = 0;
    if (strcmp(comp, "..") == 0) { *why = "contains '..'"; errno = EINVAL; break; }
    if (!slash) {
      /* A file to read must be a regular one: a FIFO would block the open (and every read) until
       * a writer comes, a device may act on being opened. So: refused before opening when it is
       * already something else, opened without blocking, and checked again on the descriptor
       * (the name may have changed in between). */
      bool want_file = !(flags & O_DIRECTORY);
      struct stat st;
      if (want_file && fstatat(dfd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISLNK(st.st_mode) &&
          !S_ISREG(st.st_mode)) {
        *why = olg__pbr_file_kind(st.st_mode);
        close(dfd);
        errno = EINVAL;
        return -1;
      }
      int fd = openat(dfd, comp, flags | O_NOFOLLOW | O_CLOEXEC | (want_file ? O_NONBLOCK : 0), mode);
      if (fd < 0) {
        /* O_NOFOLLOW gives ELOOP, or ENOTDIR with O_DIRECTORY */
        int e = errno;
        if (e == ELOOP || (fstatat(dfd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)))
          *why = "is a symbolic link";
        else if (e == ENXIO && want_file)
          *why = "is not a regular file (a socket or a device)";
        close(dfd);
        errno = e;
        return -1;
      }
      close(dfd);
      if (want_file) {
        int fl;
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
          int e = errno;
          *why = fstat(fd, &st) == 0 ? olg__pbr_file_kind(st.st_mode) : NULL;
          close(fd);
          errno = *why ? EINVAL : e;
          return -1;
        }
        /* a regular file never blocks; the flag is cleared all the same, for whoever reads */
        if ((fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
          int e = errno;
          close(fd);
          errno = e;
          return -1;
        }
      }
      return fd;
    }
    /* O_DIRECTORY fails on a FIFO or device before any open would wait or act on it */
    int nfd = openat(dfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (nfd < 0) {
      int e = errno;
      struct stat st;
      if (fstatat(dfd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        *why = "goes through a symbolic link";
      else if (e == ENOTDIR)
        *why = "goes through something that is not a directory";
      errno = e;
      break;
    }
    close(dfd);
    dfd = nfd;
    c = slash + 1;
  }
  int e = errno;
  close(dfd);
  errno = e;
  return -1;
}
