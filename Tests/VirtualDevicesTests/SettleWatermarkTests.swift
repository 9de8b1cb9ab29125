import Testing

@testable import VirtualDevices

@Suite("Settle watermark")
struct SettleWatermarkTests {
    @Test func inOrderFinishesMoveTheMarkOneByOne() {
        var w = SettleWatermark()
        for seq in 0..<5 as Range<UInt64> {
            w.finish(seq)
            #expect(w.mark == seq + 1)
        }
    }

    @Test func aLaterPushFinishingFirstDoesNotSettleAnEarlierOne() {
        var w = SettleWatermark()
        w.finish(2)
        w.finish(1)
        #expect(w.mark == 0, "push 0 is still on its way")
        w.finish(0)
        #expect(w.mark == 3)
        w.finish(3)
        #expect(w.mark == 4)
    }

    @Test func matchesAModelUnderShuffledFinishes() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let order = (0..<300 as Range<UInt64>).shuffled(using: &generator)
            var w = SettleWatermark()
            var done = Set<UInt64>()
            for seq in order {
                w.finish(seq)
                done.insert(seq)
                var expected: UInt64 = 0
                while done.contains(expected) { expected += 1 }
                #expect(w.mark == expected)
            }
        }
    }
}
