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
    /// The target, and the arguments left for libFuzzer (or the files to replay).
    static let selection: (target: FuzzTarget?, arguments: [String]) = {
        var arguments = CommandLine.arguments
        if arguments.count > 1, let target = FuzzTarget(rawValue: arguments[1]) {
            arguments.remove(at: 1)
            return (target, arguments)
        }
        return (ProcessInfo.processInfo.environment["FUZZ_TARGET"].flatMap(FuzzTarget.init(rawValue:)), arguments)
    }()

    static func main() {
        guard let target = selection.target else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            print("usage: apns-emulator-fuzz TARGET [inputs…]  (targets: \(names))")
            exit(64)
        }
        #if LIBFUZZER
        var argc = CInt(selection.arguments.count)
        var cStrings = selection.arguments.map { strdup($0) } + [nil]
        cStrings.withUnsafeMutableBufferPointer { buffer in
            var argv = buffer.baseAddress
            // A C callback captures nothing: it finds the target through the static.
            exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
                FuzzMain.selection.target!.run(UnsafeRawBufferPointer(start: data, count: size))
                return 0
            })
        }
        #else
        for path in selection.arguments.dropFirst() {
            guard let bytes = FileManager.default.contents(atPath: path) else {
                print("cannot read \(path)")
                exit(66)
            }
            [UInt8](bytes).withUnsafeBytes { target.run($0) }
            print("\(target.rawValue): \(path) ok")
        }
        #endif
    }
}
