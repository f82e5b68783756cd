public enum WidgetState {
    case idle, spinning(turns: Int)
}
