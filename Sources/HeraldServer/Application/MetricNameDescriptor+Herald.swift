import Prometheus

extension MetricNameDescriptor {
    /// A metric whose whole name is `name`, unit suffix included (`herald_http_requests_shed_total`), as `/metrics`
    /// has always shown it.
    static func herald(_ name: String, help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }
}
