#ifndef SHELF_CSODIUM_SHIM_H
#define SHELF_CSODIUM_SHIM_H

/* libsodium 1.0.18 from Debian (libsodium-dev). Shelf calls it only through
 * Modules/Encryption; every constant it needs is a plain integer macro or has a
 * function form (crypto_pwhash_opslimit_min(), …), so no wrappers are needed. */
#include <sodium.h>

#endif
