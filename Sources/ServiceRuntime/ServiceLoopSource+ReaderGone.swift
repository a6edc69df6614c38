import SystemShims

extension ServiceLoopSource {
    /// Posts `event` once when standard output is a pipe whose reader has left (`| head -1` has
    /// its line), so a process whose job is its output ends then, not at a next write that may
    /// never come. Output that is not a pipe (a terminal, a file) posts nothing: only a failed
    /// write can tell that it is gone.
    ///
    /// A thread of its own waits in `poll(2)`; an event counter wakes it when the loop ends, and
    /// is closed only once the thread has returned.
    public static func readerOfStandardOutputGone(_ event: Event) -> ServiceLoopSource {
        ServiceLoopSource { sink in
            let output = FileDescriptor.standardOutput
            guard FileDescriptor.isPipe(output), let wake = try? FileDescriptor.makeEventCounter() else { return }
            let wakeNumber = wake.rawValue
            await withTaskCancellationHandler {
                await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
                    do {
                        try DetachedThread.start {
                            if (try? FileDescriptor.waitUntilReaderGone(output, orSignalOn: wakeNumber)) == true { sink.post(event) }
                            finished.resume()
                        }
                    } catch {
                        // No thread to spare: a failed write still ends the process.
                        finished.resume()
                    }
                }
            } onCancel: {
                FileDescriptor.signalEventCounter(wakeNumber)
            }
            // Closed here, not earlier: the thread that polled it has returned.
            _ = consume wake
        }
    }
}
