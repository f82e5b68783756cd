@testable import Presentation
import Testing
import shelf
