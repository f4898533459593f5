package retry

func Retry() {}
func Loop()  {}
