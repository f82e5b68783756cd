import Domain
import Presentation
// The app declares Presentation only.
import Services
