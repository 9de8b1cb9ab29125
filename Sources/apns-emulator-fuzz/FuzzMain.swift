import FuzzTargets
import Foundation
#if LIBFUZZER
import CShims
#endif

/// `apns-emulator-fuzz TARGET [libFuzzer flags and corpus folders]`, built by `make fuzz` with coverage
/// instrumentation and libFuzzer (`-DLIBFUZZER`); in a plain build, `apns-emulator-fuzz TARGET FILE…` runs each
/// file through the target once (what a crash input does, without the fuzzer). The target can also be named by
/// `FUZZ_TARGET`, for libFuzzer's child processes.
@main
struct FuzzMain {
    static func main() {
        var arguments = CommandLine.arguments
        let name = arguments.count > 1 && FuzzTarget(rawValue: arguments[1]) != nil
            ? arguments.remove(at: 1) : (ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? "")
        guard let target = FuzzTarget(rawValue: name) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            print("usage: apns-emulator-fuzz TARGET [inputs…]  (targets: \(names))")
            exit(64)
        }
        chosen = target
        #if LIBFUZZER
        var argc = CInt(arguments.count)
        var cStrings = arguments.map { strdup($0) } + [nil]
        cStrings.withUnsafeMutableBufferPointer { buffer in
            var argv = buffer.baseAddress
            exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
                FuzzMain.chosen.run(UnsafeRawBufferPointer(start: data, count: size))
                return 0
            })
        }
        #else
        for path in arguments.dropFirst() {
            guard let bytes = FileManager.default.contents(atPath: path) else {
                print("cannot read \(path)")
                exit(66)
            }
            [UInt8](bytes).withUnsafeBytes { target.run($0) }
            print("\(target.rawValue): \(path) ok")
        }
        #endif
    }

    /// The target libFuzzer's callback runs (a C function pointer captures nothing).
    nonisolated(unsafe) static var chosen = FuzzTarget.validator
}
