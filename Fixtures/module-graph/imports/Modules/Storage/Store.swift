import Domain

// Declared nowhere, allowed nowhere.
@preconcurrency import Services
