/// `timeout` as `poll`'s argument: whole milliseconds, rounded up (rounding a wait of under a millisecond down to
/// none would spin), never negative, clamped to what `poll` takes.
public func pollMilliseconds(_ timeout: Duration) -> Int32 {
    let (seconds, attoseconds) = timeout.components
    let attosecondsPerMillisecond: Int64 = 1_000_000_000_000_000
    let milliseconds = seconds * 1000 + (attoseconds + attosecondsPerMillisecond - 1) / attosecondsPerMillisecond
    return Int32(clamping: max(0, milliseconds))
}
