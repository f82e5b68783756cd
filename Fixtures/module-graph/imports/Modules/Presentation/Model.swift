import Domain
import Foundation
// Reachable through no declared dependency either; the compiler would still refuse it,
// but a module reachable transitively would build: only this check stops it.
import struct Storage.Store
