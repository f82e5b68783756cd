struct WidgetTests {}
