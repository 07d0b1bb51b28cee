extension Double {
    /// A duration as an answer gives it, milliseconds or seconds: to a tenth, what a wait or latency means
    /// (`15.777296999999999` is `15.8`).
    var answerTenths: Double { (self * 10).rounded() / 10 }

    /// A rate as an answer gives it: to a thousandth.
    var answerRate: Double { (self * 1000).rounded() / 1000 }
}
