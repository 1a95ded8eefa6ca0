extension JSONWriter {
    /// Writes `{`, preceded by a comma when it is not the first element or member value of its container.
    public mutating func openObject() {
        separate()
        raw("{")
        needsSeparatorAfterOpening()
    }

    /// Writes `}`.
    public mutating func closeObject() {
        raw("}")
        valueWritten()
    }

    /// Writes `[`, preceded by a comma when needed.
    public mutating func openArray() {
        separate()
        raw("[")
        needsSeparatorAfterOpening()
    }

    /// Writes `]`.
    public mutating func closeArray() {
        raw("]")
        valueWritten()
    }

    /// Writes `"name":` inside an object, preceded by a comma when it is not the first member.
    public mutating func key(_ name: String) {
        separate()
        string(name)
        raw(":")
        needsSeparatorAfterOpening()
    }

    /// Writes a string element or member value.
    public mutating func value(_ value: String) {
        separate()
        string(value)
        valueWritten()
    }

    /// Writes an integer element or member value.
    public mutating func value(_ value: Int) {
        separate()
        integer(value)
        valueWritten()
    }

    /// Writes a number element or member value as ``number(_:)`` does.
    ///
    /// - Precondition: `value` is finite.
    public mutating func value(_ value: Double) {
        separate()
        number(value)
        valueWritten()
    }

    /// Writes `true` or `false`.
    public mutating func value(_ value: Bool) {
        separate()
        if value { raw("true") } else { raw("false") }
        valueWritten()
    }

    /// Writes `null`.
    public mutating func null() {
        separate()
        raw("null")
        valueWritten()
    }

    /// Writes `"name":value` (or `"name":null` for nil).
    public mutating func member(_ name: String, _ value: String?) {
        key(name)
        if let value { self.value(value) } else { null() }
    }

    /// Writes `"name":value` (or `"name":null` for nil).
    public mutating func member(_ name: String, _ value: Int?) {
        key(name)
        if let value { self.value(value) } else { null() }
    }

    /// Writes `"name":value` (or `"name":null` for nil).
    public mutating func member(_ name: String, _ value: Double?) {
        key(name)
        if let value { self.value(value) } else { null() }
    }

    /// Writes `"name":value`.
    public mutating func member(_ name: String, _ value: Bool) {
        key(name)
        self.value(value)
    }
}
