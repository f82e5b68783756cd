import Encryption
import Foundation

// MARK: - shelf-bench-kdf

/// What one Argon2id derivation costs on this machine, for a few parameter sets: the
/// figures behind `KDFParameters.recommended` (Modules/Encryption/README.md, "Key
/// derivation"). A measurement, not a test: it prints and asserts nothing.
///
/// `swift run -c release shelf-bench-kdf [RUNS]` — the best and the median of RUNS (5)
/// derivations per set, wall clock, one thread (libsodium's Argon2id uses one lane).

let runs = CommandLine.arguments.dropFirst().first.flatMap { Int($0) }.map { max(1, $0) } ?? 5
let sets: [(name: String, opsLimit: UInt64, memoryBytes: UInt64)] = [
    ("INTERACTIVE (64 MiB, 2 passes)", 2, 64 << 20),
    ("64 MiB, 3 passes", 3, 64 << 20),
    ("128 MiB, 3 passes", 3, 128 << 20),
    ("256 MiB, 2 passes", 2, 256 << 20),
    ("MODERATE (256 MiB, 3 passes)", 3, 256 << 20),
    ("512 MiB, 3 passes", 3, 512 << 20),
]

do {
    let passphrase = try Passphrase("correct horse battery staple")
    let salt = try KDFSalt.random()
    print("Argon2id (crypto_pwhash, ALG_ARGON2ID13), \(runs) runs per set, \(ProcessInfo.processInfo.activeProcessorCount) cores")
    for set in sets {
        let parameters = try KDFParameters(opsLimit: set.opsLimit, memoryBytes: set.memoryBytes)
        var seconds: [Double] = []
        for _ in 0 ..< runs {
            let start = ContinuousClock.now
            _ = try PassphraseKDF.derive(from: passphrase, salt: salt, parameters: parameters)
            let elapsed = ContinuousClock.now - start
            seconds.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        seconds.sort()
        let marker = parameters == KDFParameters.recommended ? "  <- recommended" : ""
        let name = set.name.padding(toLength: 32, withPad: " ", startingAt: 0)
        print(name + String(format: "best %.3f s  median %.3f s", seconds[0], seconds[seconds.count / 2]) + marker)
    }
} catch {
    print("shelf-bench-kdf: \(error)")
    exit(1)
}
