// NetworkManager connection objects for a node's interfaces: the one place that turns a
// resolved interface into libnm settings, shared by the keyfile renderer and the live backend
// so both produce the same profile.
#pragma once

#include <ibsetup/profile.hpp>

#include <NetworkManager.h>

#include <memory>
#include <string>

namespace ibsetup::nm {

struct GObjectDeleter {
  void operator()(gpointer p) const
  {
    if (p != nullptr) {
      g_object_unref(p);
    }
  }
};
template <class T>
using GPtr = std::unique_ptr<T, GObjectDeleter>;

struct VariantDeleter {
  void operator()(GVariant* v) const
  {
    if (v != nullptr) {
      g_variant_unref(v);
    }
  }
};
using VariantPtr = std::unique_ptr<GVariant, VariantDeleter>;

// Takes the message out of a GError and frees it.
std::string take_message(GError* error);

// The connection profile ibsetup wants for one interface: id ibsetup-<if>, the given UUID,
// type infiniband, transport mode, MTU, parent and p-key for children, manual addresses
// (IPv4/IPv6 disabled unless declared), autoconnect. Normalised and verified by libnm; throws
// InputError with NetworkManager's own message when it rejects the settings.
GPtr<NMConnection> build_connection(const profile::ResolvedInterface& i, const std::string& uuid);

// The profile's id for an interface.
std::string connection_id(const std::string& ifname);

}  // namespace ibsetup::nm
