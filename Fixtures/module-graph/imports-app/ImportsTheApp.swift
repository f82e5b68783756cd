// A test file that imports an app: check-module-graph.py must refuse it (see
// ArchitectureTests). Not part of any target.
import Foundation
import shelf
