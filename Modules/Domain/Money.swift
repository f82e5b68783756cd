// MARK: - Money

/// An amount in a currency's minor units (cents), so arithmetic is exact.
public struct Money: Hashable, Sendable, Codable {
    /// Amount in minor units, e.g. 1299 for 12.99 EUR.
    public let minorUnits: Int
    /// ISO 4217 code, upper case, e.g. "EUR".
    public let currency: String

    public init(minorUnits: Int, currency: String) throws(DomainError) {
        guard minorUnits >= 0 else { throw .negativePrice(minorUnits) }
        let code = currency.uppercased()
        guard code.utf8.count == 3,
              code.utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) })
        else { throw .invalidCurrency(currency) }
        self.minorUnits = minorUnits
        self.currency = code
    }

    /// `12.99 EUR`: two minor digits, which every currency in the catalog uses.
    public var formatted: String {
        let major = minorUnits / 100
        let minor = minorUnits % 100
        return "\(major).\(minor < 10 ? "0" : "")\(minor) \(currency)"
    }
}
