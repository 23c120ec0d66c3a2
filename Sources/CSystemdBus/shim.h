// sd-bus, systemd's D-Bus library (Debian: libsystemd-dev). Only the DBus module imports it.
#include <systemd/sd-bus.h>
#include <sys/eventfd.h>
#include <poll.h>
